import { describe, expect, it } from "vitest";
import { createHttpHandler } from "../http/handler.js";
import type { Call } from "../model.js";
import { code, createTestAuth, PASSWORD, signIn } from "../test-support.js";

const PERMISSIONS = ["project:read", "project:write"];

/** `call` with a fresh step-up token (the tests' accounts have no second factor). */
async function steppedUp(auth: ReturnType<typeof createTestAuth>["auth"], call: Call): Promise<Call> {
  const stepped = await auth.stepUp(call, { password: PASSWORD });
  if (stepped.twoFactorRequired) throw new Error("unexpected 2FA");
  return { ...call, stepUpToken: stepped.stepUpToken };
}

/** An auth with API keys (3 requests a minute unless told) and organizations on, and a signed-in user maker. */
function keyAuth(requestsPerMinute = 3) {
  const test = createTestAuth({
    apiKeys: { requestsPerMinute },
    organizations: { permissions: PERMISSIONS, memberPermissions: ["project:read"] },
    email: { loginAlerts: false },
    admin: { authorize: () => false },
  });
  const { auth } = test;
  async function user(email: string) {
    const created = await auth.host.createUser({}, { email, password: PASSWORD, emailVerified: true });
    const login = await signIn(auth, { email, password: PASSWORD });
    const call: Call = { principal: await auth.authenticate({ token: login.accessToken }) };
    return { id: created.id, email, call, stepUp: await steppedUp(auth, call) };
  }
  const use = (key: string) => auth.authenticate({ token: key });
  return { ...test, user, use };
}

describe("API keys (core)", () => {
  it("create - needs a step-up; the key authenticates as the user and is refused by the user's own routes", async () => {
    const { auth, user, use } = keyAuth();
    const ada = await user("ada@example.test");
    expect(await code(auth.apiKeys.create(ada.call, { name: "ci" }))).toBe("STEP_UP_REQUIRED");
    const { apiKey, key } = await auth.apiKeys.create(ada.stepUp, { name: "ci" });
    expect(apiKey).toMatchObject({ name: "ci", organizationId: null, permissions: null, lastUsedAt: null });
    expect(JSON.stringify(await auth.apiKeys.list(ada.call))).not.toContain(key);
    const principal = await use(key);
    expect(principal).toMatchObject({ userId: ada.id, activeOrganizationId: null });
    expect(principal.apiKey).toEqual({ id: apiKey.id, organizationId: null, permissions: null });
    expect(await code(auth.getCurrentUser({ principal }))).toBe("API_KEY_NOT_ALLOWED");
    expect(await code(auth.apiKeys.list({ principal }))).toBe("API_KEY_NOT_ALLOWED");
    expect(await code(auth.organizations.require(principal, "project:read"))).toBe("NO_ACTIVE_ORGANIZATION");
  });

  it("authenticate - wrong, cut, unknown, expired and deleted keys are API_KEY_INVALID", async () => {
    const { auth, clock, user, use } = keyAuth();
    const ada = await user("ada@example.test");
    const { apiKey, key } = await auth.apiKeys.create(ada.stepUp, { name: "ci", expiresInDays: 1 });
    const other = await auth.apiKeys.create(ada.stepUp, { name: "other" });
    // Another key's lookup id with this key's secret part: found, but its hash differs.
    const spliced = `${other.key.slice(0, 15)}${key.slice(15, 46)}`;
    // The last character changed (to one it is not: a key may end in "x").
    const changed = `${key.slice(0, -1)}${key.endsWith("x") ? "y" : "x"}`;
    for (const wrong of [key.slice(0, -1), changed, spliced, "pc_"])
      expect(await code(use(wrong)), wrong).toBe("API_KEY_INVALID");
    expect(await code(use(key))).toBe("OK");
    clock.advance(24 * 3600 * 1000);
    expect(await code(use(key))).toBe("API_KEY_INVALID");
    expect(await auth.apiKeys.delete(ada.call, other.apiKey.id)).toEqual({ success: true });
    expect(await code(use(other.key))).toBe("API_KEY_INVALID");
    expect(await code(auth.apiKeys.delete(ada.call, apiKey.id))).toBe("OK");
    expect(await code(auth.apiKeys.delete(ada.call, apiKey.id))).toBe("NOT_FOUND");
  });

  it("authenticate - over requestsPerMinute is API_KEY_RATE_LIMITED until the window ends; wrong keys use none of it", async () => {
    const { auth, clock, user, use } = keyAuth();
    const ada = await user("ada@example.test");
    const { key } = await auth.apiKeys.create(ada.stepUp, { name: "ci" });
    const wrong = `${key.slice(0, 15)}${"a".repeat(31)}${key.slice(46)}`;
    for (let i = 0; i < 5; i++) expect(await code(use(wrong))).toBe("API_KEY_INVALID");
    await auth.idle();
    const answers = await Promise.all(Array.from({ length: 8 }, () => code(use(key))));
    expect(answers.filter((answer) => answer === "OK")).toHaveLength(3);
    expect(answers.filter((answer) => answer === "API_KEY_RATE_LIMITED")).toHaveLength(5);
    const refused = await use(key).catch((error: { remainingSeconds: number }) => error);
    expect((refused as { remainingSeconds: number }).remainingSeconds).toBe(60);
    clock.advance(60_000);
    expect(await code(use(key))).toBe("OK");
  });

  it("authenticate - lastUsedAt is written at most once a minute", async () => {
    const { auth, clock, stores, user, use } = keyAuth();
    const ada = await user("ada@example.test");
    const { apiKey, key } = await auth.apiKeys.create(ada.stepUp, { name: "ci" });
    let touches = 0;
    const touch = stores.apiKeys.touchApiKey.bind(stores.apiKeys);
    stores.apiKeys.touchApiKey = async (...args) => {
      touches++;
      return touch(...args);
    };
    await use(key);
    await auth.idle();
    const first = (await auth.apiKeys.list(ada.call)).items[0]?.lastUsedAt;
    expect(first).toBe(new Date(clock.now()).toISOString());
    clock.advance(30_000);
    await use(key);
    await auth.idle();
    expect(touches).toBe(1);
    clock.advance(30_000);
    await use(key);
    await auth.idle();
    expect(touches).toBe(2);
    expect((await auth.apiKeys.list(ada.call)).items.find((k) => k.id === apiKey.id)?.lastUsedAt).toBe(
      new Date(clock.now()).toISOString(),
    );
  });

  it("authenticate - a store that fails refuses (never grants), and the failed requests count for nothing", async () => {
    const { auth, stores, user, use } = keyAuth();
    const ada = await user("ada@example.test");
    const { key } = await auth.apiKeys.create(ada.stepUp, { name: "ci" });
    const useApiKey = stores.apiKeys.useApiKey;
    stores.apiKeys.useApiKey = async () => {
      throw new Error("down");
    };
    for (let i = 0; i < 4; i++) expect(await code(use(key))).toBe("DATABASE_FAILURE");
    stores.apiKeys.useApiKey = useApiKey;
    await auth.idle();
    // The failed requests used none of the 3 a minute.
    for (let i = 0; i < 3; i++) expect(await code(use(key))).toBe("OK");
    expect(await code(use(key))).toBe("API_KEY_RATE_LIMITED");
  });

  it("authenticate - a key used often costs the store one counting call a block; the limit holds; a deletion is seen at once", async () => {
    const { auth, stores, clock, user, use } = keyAuth(600);
    const ada = await user("ada@example.test");
    const { apiKey, key } = await auth.apiKeys.create(ada.stepUp, { name: "ci" });
    const calls = { counting: 0, reading: 0 };
    const { useApiKey } = stores.apiKeys;
    stores.apiKeys.useApiKey = (lookupId, windowMs, uses) => {
      calls[uses === 0 ? "reading" : "counting"] += 1;
      return useApiKey.call(stores.apiKeys, lookupId, windowMs, uses);
    };
    for (let i = 0; i < 600; i++) expect(await code(use(key))).toBe("OK");
    // Blocks of 1, 2, 4, 8, 16, then 30 (a twentieth of 600): 24 counting calls for 600 requests,
    // the others a read of the key with a count held.
    expect(calls).toEqual({ counting: 24, reading: 576 });
    expect(await code(use(key))).toBe("API_KEY_RATE_LIMITED");
    expect(calls.counting).toBe(24);
    clock.advance(60_000);
    expect(await code(use(key))).toBe("OK");
    expect(await code(use(key))).toBe("OK");
    await auth.apiKeys.delete(ada.call, apiKey.id);
    expect(await code(use(key))).toBe("API_KEY_INVALID");
  });

  it("organization key - needs api-key:manage and only permissions its creator holds; acts with those alone", async () => {
    const { auth, user, use } = keyAuth();
    const owner = await user("owner@example.test");
    const stranger = await user("stranger@example.test");
    const { organization } = await auth.organizations.create(owner.call, { name: "Acme" });
    const input = { name: "deploy", organizationId: organization.id, permissions: ["project:read"] };
    expect(await code(auth.apiKeys.create(stranger.stepUp, input))).toBe("ORGANIZATION_NOT_FOUND");
    expect(await code(auth.apiKeys.create(owner.stepUp, { ...input, permissions: ["nope:x"] }))).toBe(
      "VALIDATION_FAILED",
    );
    expect(await code(auth.apiKeys.create(owner.stepUp, { name: "x", permissions: ["project:read"] }))).toBe(
      "VALIDATION_FAILED",
    );
    const { apiKey, key } = await auth.apiKeys.create(owner.stepUp, input);
    expect(apiKey).toMatchObject({ organizationId: organization.id, permissions: ["project:read"] });
    const principal = await use(key);
    expect(principal.activeOrganizationId).toBe(organization.id);
    expect(await auth.organizations.require(principal, "project:read")).toEqual({
      organizationId: organization.id,
      role: "api-key",
      permissions: ["project:read"],
    });
    for (const denied of ["project:write", "api-key:manage", "unknown:thing"])
      expect(await auth.organizations.can(principal, denied)).toBe(false);
    expect(await code(auth.apiKeys.list(stranger.call, { organizationId: organization.id }))).toBe(
      "ORGANIZATION_NOT_FOUND",
    );
    expect((await auth.apiKeys.list(owner.call, { organizationId: organization.id })).items).toHaveLength(1);
    expect(await code(auth.apiKeys.delete(stranger.call, apiKey.id))).toBe("NOT_FOUND");
  });

  it("organization key - a member without api-key:manage, or granting what they lack, is refused", async () => {
    const { auth, sent, user } = keyAuth();
    const owner = await user("owner@example.test");
    const member = await user("member@example.test");
    const { organization } = await auth.organizations.create(owner.call, { name: "Acme" });
    await auth.organizations.createRole(owner.call, {
      organizationId: organization.id,
      body: { name: "keeper", permissions: ["api-key:manage", "project:read"] },
    });
    await auth.organizations.invite(owner.call, {
      organizationId: organization.id,
      body: { email: member.email, role: "keeper" },
    });
    const token = sent.findLast((m) => m.to === member.email)?.text.match(/token=([\w-]+)/)?.[1] ?? "";
    await auth.organizations.acceptInvitation(member.call, { token });
    const base = { name: "k", organizationId: organization.id };
    expect(await code(auth.apiKeys.create(member.stepUp, { ...base, permissions: ["project:write"] }))).toBe(
      "PERMISSION_DENIED",
    );
    const made = await auth.apiKeys.create(member.stepUp, { ...base, permissions: ["project:read"] });
    await auth.organizations.changeMemberRole(owner.call, {
      organizationId: organization.id,
      userId: member.id,
      body: { role: "member" },
    });
    expect(await code(auth.apiKeys.list(member.call, { organizationId: organization.id }))).toBe(
      "PERMISSION_DENIED",
    );
    expect(await code(auth.apiKeys.delete(member.call, made.apiKey.id))).toBe("NOT_FOUND");
    expect(await code(auth.apiKeys.create(member.stepUp, { ...base, permissions: ["project:read"] }))).toBe(
      "PERMISSION_DENIED",
    );
  });

  it("ends - the org key outlives its creator's membership, not the organization; the user's keys end with a lock or deletion", async () => {
    const { auth, user, use } = keyAuth();
    const owner = await user("owner@example.test");
    const ada = await user("ada@example.test");
    const { organization } = await auth.organizations.create(owner.call, { name: "Acme" });
    const orgKey = await auth.apiKeys.create(owner.stepUp, {
      name: "deploy",
      organizationId: organization.id,
      permissions: ["project:read"],
    });
    const adaKey = await auth.apiKeys.create(ada.stepUp, { name: "cli" });
    const ownerKey = await auth.apiKeys.create(owner.stepUp, { name: "mine" });
    await auth.host.lockUser({}, { userId: ada.id });
    expect(await code(use(adaKey.key))).toBe("API_KEY_INVALID");
    // The organization goes: its keys with it; the owner's own key stays until the account goes.
    await auth.organizations.delete(await steppedUp(auth, owner.call), organization.id);
    expect(await code(use(orgKey.key))).toBe("API_KEY_INVALID");
    expect(await code(use(ownerKey.key))).toBe("OK");
    await auth.host.deleteUser({}, owner.id);
    expect(await code(use(ownerKey.key))).toBe("API_KEY_INVALID");
  });

  it("limit - at most maxPerOwner keys per owner: API_KEY_LIMIT_REACHED", async () => {
    const { auth } = createTestAuth({ apiKeys: { maxPerOwner: 2 }, email: { loginAlerts: false } });
    await auth.host.createUser({}, { email: "ada@example.test", password: PASSWORD, emailVerified: true });
    const login = await signIn(auth, { email: "ada@example.test", password: PASSWORD });
    const call: Call = { principal: await auth.authenticate({ token: login.accessToken }) };
    const stepUp = await steppedUp(auth, call);
    await auth.apiKeys.create(stepUp, { name: "a" });
    await auth.apiKeys.create(stepUp, { name: "b" });
    expect(await code(auth.apiKeys.create(stepUp, { name: "c" }))).toBe("API_KEY_LIMIT_REACHED");
  });

  it("off - without the apiKeys option its methods are NOT_FOUND and a pc_ token is no key", async () => {
    const { auth } = createTestAuth({ email: { loginAlerts: false } });
    expect(auth.apiKeys.enabled).toBe(false);
    expect(await code(auth.apiKeys.list({}))).toBe("NOT_FOUND");
    expect(await code(auth.authenticate({ token: `pc_${"a".repeat(49)}` }))).toBe("ACCESS_TOKEN_INVALID");
  });
});

describe("API keys (HTTP layer)", () => {
  it("host guard - a key in X-API-Key or a bearer header works; in the access cookie or the query it is refused; X-API-Key is always a key", async () => {
    const { auth, user } = keyAuth();
    const ada = await user("ada@example.test");
    const { key } = await auth.apiKeys.create(ada.stepUp, { name: "ci" });
    const handler = createHttpHandler(auth);
    const guard = (headers: Record<string, string>, url = "/host") =>
      handler.authenticate({ method: "GET", url, headers });
    expect((await guard({ "x-api-key": key })).principal?.userId).toBe(ada.id);
    expect((await guard({ authorization: `Bearer ${key}` })).principal?.userId).toBe(ada.id);
    const cookie = await guard({ cookie: `access_token=${key}` });
    expect(cookie.response?.headers["auth-error-code"]).toBe("API_KEY_INVALID");
    const named = await guard({ "x-api-key": "not-a-key" });
    expect(named.response?.headers["auth-error-code"]).toBe("API_KEY_INVALID");
    const query = await guard({}, `/host?access_token=${key}`);
    expect(query.response?.headers["auth-error-code"]).toBe("AUTHENTICATION_REQUIRED");
  });

  it("auth routes - a request with a key is API_KEY_NOT_ALLOWED before anything runs", async () => {
    const { auth, user } = keyAuth();
    const ada = await user("ada@example.test");
    const { key } = await auth.apiKeys.create(ada.stepUp, { name: "ci" });
    const handler = createHttpHandler(auth);
    for (const headers of [{ "x-api-key": key }, { authorization: `Bearer ${key}` }]) {
      const me = await handler.handle({ method: "GET", url: "/api/auth/me", headers });
      expect(me?.status).toBe(403);
      expect(me?.headers["auth-error-code"]).toBe("API_KEY_NOT_ALLOWED");
    }
  });
});
