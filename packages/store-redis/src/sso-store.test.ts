import { randomBytes } from "node:crypto";
import type { SsoConnectionRecord, SsoStore } from "@portcullis/core";
import { runSsoStoreSuite } from "@portcullis/testing";
import { describe, expect, it, vi } from "vitest";
import { createRedisSsoStore } from "./sso-store.js";
import { keysUnder, redisForFile, serverTime } from "./test-redis.js";

// Each test under a prefix of its own on this file's Redis (deleted after the file).
const redis = redisForFile();

runSsoStoreSuite({
  name: "redis",
  create: () => ({
    store: createRedisSsoStore({ client: redis.client, keyPrefix: redis.prefix() }),
    now: () => serverTime(redis.client),
  }),
});

const T0 = 1_700_000_000_000;
const MINUTE = 60_000;
/** How long the store keeps a used assertion after its `expiresAt` (sso-store.ts). */
const GRACE = 10 * MINUTE;
/** Slack for the time a test takes between a write and the PTTL that reads it. */
const SLACK = 5_000;

const newId = () => randomBytes(12).toString("hex");
const newDomain = () => `d${newId()}.example.com`;

/** A store under a prefix of its own, and the space its keys are in (the `{sso}` tag). */
function setup() {
  const prefix = redis.prefix();
  const store = createRedisSsoStore({ client: redis.client, keyPrefix: prefix });
  return { prefix, store, space: `${prefix}{sso}:` };
}

/** A stored SAML connection of `organizationId`, its two domains verified by that organization. */
async function routed(store: SsoStore, organizationId = `org-${newId()}`): Promise<SsoConnectionRecord> {
  const connection: SsoConnectionRecord = {
    id: `conn-${newId()}`,
    organizationId,
    type: "saml",
    saml: { entityId: "https://idp.example.com", ssoUrl: "https://idp.example.com/sso", certificates: ["x"] },
    oidc: null,
    defaultRole: "member",
    domains: [newDomain(), newDomain()],
    ssoRequired: true,
    idpInitiated: false,
    scimTokenHash: newId(),
    createdAt: T0,
    updatedAt: T0,
  };
  expect(await store.createSsoConnection(structuredClone(connection))).toBe("created");
  for (const domain of connection.domains) {
    const claim = { organizationId, domain, verificationToken: newId(), verifiedAt: null, createdAt: T0 };
    expect(await store.claimSsoDomain(claim)).toBe("created");
    expect(await store.verifySsoDomain(organizationId, domain, T0)).toEqual({ ...claim, verifiedAt: T0 });
  }
  return connection;
}

describe("redis SsoStore: keys", () => {
  it("every key is under the {sso} tag (one cluster slot)", async () => {
    const { prefix, store, space } = setup();
    const connection = await routed(store);
    expect(await store.useSsoAssertion(connection.id, `_${newId()}`, Date.now() + MINUTE)).toBe(true);
    const keys = await keysUnder(redis.client, prefix);
    // The connection, its organization's index, two domain owners, its SCIM entry, two claims,
    // their organization's set, two verified entries, a used assertion and its index.
    expect(keys).toHaveLength(12);
    for (const key of keys) expect(key.startsWith(space)).toBe(true);
  });

  it("removeOrganizationSso, deleteSsoConnection and releaseSsoDomain leave nothing of theirs behind", async () => {
    const { prefix, store } = setup();
    const other = await routed(store);
    expect(await store.useSsoAssertion(other.id, `_${newId()}`, Date.now() + MINUTE)).toBe(true);
    const others = (await keysUnder(redis.client, prefix)).sort();
    const organizationId = `org-${newId()}`;
    const first = await routed(store, organizationId);
    await routed(store, organizationId);
    expect(await store.useSsoAssertion(first.id, `_${newId()}`, Date.now() + MINUTE)).toBe(true);
    // Two connections (each itself, two domain owners, a SCIM entry) and their index; four claims
    // (each itself and its verified entry) and their set; an assertion and its connection's index.
    expect((await keysUnder(redis.client, prefix)).length).toBe(others.length + 9 + 9 + 2);
    await store.removeOrganizationSso(organizationId);
    expect((await keysUnder(redis.client, prefix)).sort()).toEqual(others);
    expect(await store.deleteSsoConnection(other.organizationId, other.id)).toBe(true);
    for (const domain of other.domains)
      expect(await store.releaseSsoDomain(other.organizationId, domain)).toBe(true);
    expect(await keysUnder(redis.client, prefix)).toEqual([]);
  });
});

describe("redis SsoStore: used assertions", () => {
  it("kept until expiresAt on this process's clock and a grace more; a past expiresAt the grace", async () => {
    const { store, space } = setup();
    const connectionId = `conn-${newId()}`;
    const timely = `_${newId()}`;
    expect(await store.useSsoAssertion(connectionId, timely, Date.now() + 5 * MINUTE)).toBe(true);
    const timelyKey = `${space}a:${JSON.stringify([connectionId, timely])}`;
    const left = await redis.client.pttl(timelyKey);
    expect(left).toBeLessThanOrEqual(5 * MINUTE + GRACE);
    expect(left).toBeGreaterThan(5 * MINUTE + GRACE - SLACK);
    const late = `_${newId()}`;
    expect(await store.useSsoAssertion(connectionId, late, T0)).toBe(true);
    const lateLeft = await redis.client.pttl(`${space}a:${JSON.stringify([connectionId, late])}`);
    expect(lateLeft).toBeLessThanOrEqual(GRACE);
    expect(lateLeft).toBeGreaterThan(GRACE - SLACK);
    expect(await store.useSsoAssertion(connectionId, late, T0)).toBe(false);
    // The connection's index lives as long as its longest-lived member.
    expect(await redis.client.pttl(`${space}ca:${connectionId}`)).toBeGreaterThanOrEqual(left - SLACK);
  });
});

describe("redis SsoStore: round trips", () => {
  it("findSsoRoute and findSsoConnectionByScimTokenHash send one command each", async () => {
    const { store } = setup();
    const connection = await routed(store);
    const [domain = ""] = connection.domains;
    // Once first, so each script is loaded (EVALSHA's first miss sends EVAL once per connection).
    expect(await store.findSsoRoute(domain)).not.toBeNull();
    expect(await store.findSsoConnectionByScimTokenHash(connection.scimTokenHash ?? "")).toEqual(connection);
    const sent = vi.spyOn(redis.client, "sendCommand");
    try {
      expect((await store.findSsoRoute(domain))?.connection).toEqual(connection);
      expect(sent).toHaveBeenCalledTimes(1);
      expect(await store.findSsoConnectionByScimTokenHash(connection.scimTokenHash ?? "")).toEqual(
        connection,
      );
      expect(sent).toHaveBeenCalledTimes(2);
    } finally {
      sent.mockRestore();
    }
  });
});
