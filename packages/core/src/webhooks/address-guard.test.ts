import { describe, expect, it } from "vitest";
import {
  checkWebhookUrl,
  checkWebhookUrlSyntax,
  isPublicAddress,
  type LookupAddresses,
  resolveWebhookTarget,
} from "./address-guard.js";

const strict = { allowPrivateNetworks: false };
const family = (address: string) => (address.includes(":") ? 6 : 4);
/** A resolver that answers every name with `addresses`. */
const resolvingTo =
  (...addresses: string[]): LookupAddresses =>
  async () =>
    addresses.map((address) => ({ address, family: family(address) }));
const notFound: LookupAddresses = async () => {
  throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
};

const BLOCKED = [
  "127.0.0.1",
  "::1",
  "10.1.2.3",
  "172.16.0.1",
  "172.31.255.255",
  "192.168.1.1",
  "169.254.169.254",
  "100.64.0.1",
  "0.0.0.0",
  "fd00::1",
  "fe80::1",
  "::ffff:127.0.0.1",
  "::ffff:10.0.0.1",
  "224.0.0.1",
  "ff02::1",
  "255.255.255.255",
  "::",
];

describe("webhook address guard", () => {
  it("isPublicAddress - loopback, private, link-local, CGNAT, unique-local, mapped, multicast and reserved are refused", () => {
    for (const address of BLOCKED) expect([address, isPublicAddress(address)]).toEqual([address, false]);
    for (const address of ["93.184.216.34", "8.8.8.8", "2606:4700::1111", "::ffff:8.8.8.8"])
      expect([address, isPublicAddress(address)]).toEqual([address, true]);
    expect(isPublicAddress("not an address")).toBe(false);
  });

  it("resolveWebhookTarget - a literal blocked address is refused without a lookup", async () => {
    const lookup: LookupAddresses = async () => {
      throw new Error("no lookup expected");
    };
    for (const address of BLOCKED) {
      const host = address.includes(":") ? `[${address}]` : address;
      const target = await resolveWebhookTarget(`https://${host}/hook`, { ...strict, lookup });
      expect(target.ok).toBe(false);
      if (!target.ok) expect(target.reason).toMatch(/^blocked address /);
    }
    expect(await resolveWebhookTarget("https://[::ffff:127.0.0.1]/", strict)).toEqual({
      ok: false,
      reason: "blocked address 127.0.0.1",
    });
  });

  it("resolveWebhookTarget - a name resolving to loopback, or to a public and a private address, is refused", async () => {
    expect(
      await resolveWebhookTarget("https://hooks.test/x", { ...strict, lookup: resolvingTo("127.0.0.1") }),
    ).toEqual({ ok: false, reason: "blocked address 127.0.0.1" });
    const mixed = await resolveWebhookTarget("https://hooks.test/x", {
      ...strict,
      lookup: resolvingTo("93.184.216.34", "169.254.169.254"),
    });
    expect(mixed).toEqual({ ok: false, reason: "blocked address 169.254.169.254" });
    const mapped = await resolveWebhookTarget("https://hooks.test/x", {
      ...strict,
      lookup: resolvingTo("::ffff:7f00:1"),
    });
    expect(mapped.ok).toBe(false);
  });

  it("resolveWebhookTarget - a public name resolves to its checked addresses", async () => {
    const target = await resolveWebhookTarget("https://hooks.test:8443/x?y=1", {
      ...strict,
      lookup: resolvingTo("93.184.216.34", "2606:4700::1111"),
    });
    expect(target).toMatchObject({
      ok: true,
      addresses: [
        { address: "93.184.216.34", family: 4 },
        { address: "2606:4700::1111", family: 6 },
      ],
    });
    if (target.ok) expect(target.url.host).toBe("hooks.test:8443");
    expect(await resolveWebhookTarget("https://8.8.8.8/", strict)).toMatchObject({
      ok: true,
      addresses: [{ address: "8.8.8.8", family: 4 }],
    });
  });

  it("resolveWebhookTarget - a name that does not resolve, or too slowly, fails", async () => {
    expect(await resolveWebhookTarget("https://nowhere.test/", { ...strict, lookup: notFound })).toEqual({
      ok: false,
      reason: "host not found",
    });
    const never: LookupAddresses = () => new Promise(() => {});
    expect(
      await resolveWebhookTarget("https://slow.test/", { ...strict, lookup: never, lookupTimeoutMs: 20 }),
    ).toEqual({ ok: false, reason: "host not found" });
  });

  it("resolveWebhookTarget - allowPrivateNetworks lets http and private addresses through", async () => {
    const open = { allowPrivateNetworks: true, lookup: resolvingTo("10.0.0.5") };
    expect(await resolveWebhookTarget("http://127.0.0.1:8080/x", open)).toMatchObject({ ok: true });
    expect(await resolveWebhookTarget("http://hooks.internal/x", open)).toMatchObject({
      ok: true,
      addresses: [{ address: "10.0.0.5", family: 4 }],
    });
  });

  it("checkWebhookUrlSyntax - https only unless allowPrivateNetworks, no credentials, an http(s) URL", () => {
    expect(checkWebhookUrlSyntax("http://hooks.test/x", strict)).toEqual({ ok: false, reason: "not https" });
    expect(checkWebhookUrlSyntax("http://hooks.test/x", { allowPrivateNetworks: true })).toEqual({
      ok: true,
    });
    expect(checkWebhookUrlSyntax("https://user:pw@hooks.test/x", strict)).toEqual({
      ok: false,
      reason: "credentials in the URL",
    });
    expect(checkWebhookUrlSyntax("ftp://hooks.test/x", { allowPrivateNetworks: true })).toMatchObject({
      ok: false,
    });
    expect(checkWebhookUrlSyntax("not a url", strict)).toEqual({ ok: false, reason: "not a URL" });
    expect(checkWebhookUrlSyntax("https://10.0.0.1/x", strict)).toEqual({
      ok: false,
      reason: "blocked address 10.0.0.1",
    });
    expect(checkWebhookUrlSyntax("https://hooks.test/x", strict)).toEqual({ ok: true });
  });

  it("checkWebhookUrl - refuses a name resolving to a private address; accepts one that does not resolve yet", async () => {
    expect(
      await checkWebhookUrl("https://hooks.test/x", { ...strict, lookup: resolvingTo("192.168.1.1") }),
    ).toEqual({
      ok: false,
      reason: "blocked address 192.168.1.1",
    });
    expect(
      await checkWebhookUrl("https://hooks.test/x", { ...strict, lookup: resolvingTo("8.8.8.8") }),
    ).toEqual({
      ok: true,
    });
    expect(await checkWebhookUrl("https://later.test/x", { ...strict, lookup: notFound })).toEqual({
      ok: true,
    });
    expect(await checkWebhookUrl("http://later.test/x", { ...strict, lookup: notFound })).toEqual({
      ok: false,
      reason: "not https",
    });
    expect(
      await checkWebhookUrl("http://localhost:3000/x", { allowPrivateNetworks: true, lookup: notFound }),
    ).toEqual({ ok: true });
  });
});
