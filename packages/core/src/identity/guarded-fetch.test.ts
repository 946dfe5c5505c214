import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSealer } from "../tokens/sealer.js";
import { createGuardedFetch, GuardedFetchError } from "./guarded-fetch.js";

const server = createServer((request, response) => {
  if (request.url === "/redirect") return void response.writeHead(302, { location: "/json" }).end();
  if (request.url === "/big") return void response.writeHead(200).end("x".repeat(4096));
  if (request.url === "/slow") return void setTimeout(() => response.end("late"), 2_000).unref();
  let body = "";
  request.on("data", (chunk) => {
    body += chunk;
  });
  request.on("end", () => {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify({ method: request.method, body, host: request.headers.host }));
  });
});
let base = "";

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("createGuardedFetch", () => {
  it("refuses http, and names resolving to loopback, private, link-local or unique-local addresses, without connecting", async () => {
    const guarded = (address: string) =>
      createGuardedFetch({
        allowPrivateNetworks: false,
        lookup: async () => [{ address, family: address.includes(":") ? 6 : 4 }],
      });
    await expect(guarded("93.184.216.34")(base)).rejects.toThrow(/not https/);
    for (const address of ["127.0.0.1", "10.0.0.7", "169.254.169.254", "fd12::1", "::1"])
      await expect(guarded(address)("https://idp.example.test/.well-known/x")).rejects.toThrow(
        new RegExp(`blocked address ${address.replace(/\./g, "\\.")}`),
      );
    // A name with one public and one internal address is refused as a whole.
    const mixed = createGuardedFetch({
      allowPrivateNetworks: false,
      lookup: async () => [
        { address: "93.184.216.34", family: 4 },
        { address: "192.168.1.1", family: 4 },
      ],
    });
    await expect(mixed("https://idp.example.test/")).rejects.toBeInstanceOf(GuardedFetchError);
  });

  it("connects only to the checked addresses, keeping the URL's host; sends the body; answers a Response", async () => {
    const port = new URL(base).port;
    const pinned = createGuardedFetch({
      allowPrivateNetworks: true,
      lookup: async () => [{ address: "127.0.0.1", family: 4 }],
    });
    const response = await pinned(`http://idp.example.test:${port}/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "authorization_code" }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      method: "POST",
      body: "grant_type=authorization_code",
      host: `idp.example.test:${port}`,
    });
  });

  it("answers a redirect without following it, fails past the size cap and the timeout", async () => {
    const open = createGuardedFetch({ allowPrivateNetworks: true, maxAnswerBytes: 1024, timeoutMs: 300 });
    const redirected = await open(`${base}/redirect`);
    expect([redirected.status, redirected.headers.get("location")]).toEqual([302, "/json"]);
    await expect(open(`${base}/big`)).rejects.toThrow(/answer over 1024 bytes/);
    await expect(open(`${base}/slow`)).rejects.toThrow(/timed out/);
  });
});

describe("createSealer", () => {
  it("opens what it sealed under any of its secrets, never under another purpose, secret or a changed byte", () => {
    const sealed = createSealer(["first-secret-0123456789abcdef0123"], "purpose a").seal("client secret");
    expect(sealed).not.toContain("client secret");
    const rotated = createSealer(
      ["new-secret-0123456789abcdef01234567", "first-secret-0123456789abcdef0123"],
      "purpose a",
    );
    expect(rotated.open(sealed)).toBe("client secret");
    expect(createSealer(["first-secret-0123456789abcdef0123"], "purpose b").open(sealed)).toBeNull();
    expect(createSealer(["other-secret-0123456789abcdef0123"], "purpose a").open(sealed)).toBeNull();
    // One character of the IV changed (a whole base64url digit, so the bytes change too).
    const at = 5;
    const flipped = `${sealed.slice(0, at)}${sealed[at] === "A" ? "B" : "A"}${sealed.slice(at + 1)}`;
    expect(rotated.open(flipped)).toBeNull();
  });
});
