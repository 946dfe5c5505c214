import { describe, expect, it } from "vitest";
import { fromFetchRequest, toFetchResponse } from "./fetch.js";
import { guardRequest } from "./guard.js";
import type { HttpHandler } from "./handler.js";

async function text(body: unknown): Promise<string> {
  let all = "";
  for await (const chunk of body as AsyncIterable<Uint8Array>) all += new TextDecoder().decode(chunk);
  return all;
}

describe("fetch helpers", () => {
  it("fromFetchRequest - method, path and query, headers with a host, the peer address, TLS from the URL", () => {
    const request = new Request("https://app.example.test/api/auth/login?x=1", { method: "POST" });
    expect(fromFetchRequest(request, "203.0.113.7")).toMatchObject({
      method: "POST",
      url: "/api/auth/login?x=1",
      headers: { host: "app.example.test" },
      remoteAddress: "203.0.113.7",
      encrypted: true,
    });
    const plain = fromFetchRequest(
      new Request("http://localhost:3000/a", { headers: { host: "proxy.test" } }),
    );
    expect(plain).toMatchObject({
      headers: { host: "proxy.test" },
      remoteAddress: undefined,
      encrypted: false,
    });
  });

  it("fromFetchRequest - a body a middleware already read: reading it fails with an error that says so", async () => {
    for (const headers of [{ "content-length": "3" }, {}] as Record<string, string>[]) {
      const request = new Request("http://x.test/", { method: "POST", body: "a=b", headers });
      await request.formData().catch(() => request.text().catch(() => undefined));
      expect(request.bodyUsed).toBe(true);
      expect(() => fromFetchRequest(request).body).toThrow(/body-parsing middleware ran first/);
    }
  });

  it("fromFetchRequest - the body whole with a Content-Length, else the stream; read only when asked", async () => {
    const sized = new Request("http://x.test/", {
      method: "POST",
      body: "abc",
      headers: { "content-length": "3" },
    });
    const mapped = fromFetchRequest(sized);
    expect(sized.bodyUsed).toBe(false);
    expect(await text(mapped.body)).toBe("abc");
    const streamed = new Request("http://x.test/", { method: "POST", body: "def" });
    expect(fromFetchRequest(streamed).body).toBe(streamed.body);
  });

  it("toFetchResponse - status, headers, one Set-Cookie per cookie, the body or none", async () => {
    const response = toFetchResponse({
      status: 201,
      headers: { "content-type": "application/json" },
      cookies: ["a=1; Path=/", "b=2; Path=/"],
      body: '{"ok":true}',
    });
    expect(response.status).toBe(201);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.getSetCookie()).toEqual(["a=1; Path=/", "b=2; Path=/"]);
    expect(await response.text()).toBe('{"ok":true}');
    expect(toFetchResponse({ status: 304, headers: {}, cookies: [], body: null }).body).toBeNull();
  });

  it("guardRequest - sets auth (and organization with a permission) on the target, or returns the refusal", async () => {
    const principal = { userId: "u1" };
    const organization = { organizationId: "o1" };
    const refusal = { status: 401, headers: {}, cookies: [], body: "{}" };
    const handler = {
      authenticate: async (_request: unknown, permission?: string) =>
        permission === "denied"
          ? { response: refusal }
          : permission
            ? { principal, organization }
            : { principal },
    } as unknown as HttpHandler;
    const request = { method: "GET", url: "/orders", headers: {} };
    const plain: Record<string, unknown> = {};
    expect(await guardRequest(handler, plain, request)).toBeUndefined();
    expect(plain).toEqual({ auth: principal });
    const member: Record<string, unknown> = {};
    expect(await guardRequest(handler, member, request, "project:read")).toBeUndefined();
    expect(member).toEqual({ auth: principal, organization });
    const refused: Record<string, unknown> = {};
    expect(await guardRequest(handler, refused, request, "denied")).toBe(refusal);
    expect(refused).toEqual({});
  });
});
