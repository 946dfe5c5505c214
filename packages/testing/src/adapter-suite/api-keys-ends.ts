// The API key tests of the adapter suite about limits, races and how keys end (api-keys.ts runs them).
import { expect } from "vitest";
import {
  bootApiKeys,
  createKey,
  listKeys,
  ownAndOrganizationKeys,
  rewritten,
  withKey,
} from "./api-keys-fixture.js";
import { type AppTests, expectCode, expectError } from "./fixture.js";
import { as, bootOrganizations, createOrganization, member, stepUp, team } from "./organization-fixture.js";

const LIMIT = 5;
const MINUTE_MS = 60_000;

/** Per-key request limits, concurrent requests and deletes, owners' limits, `lastUsedAt`. */
export const apiKeyLimitTests: AppTests = {
  "requireAuth - the request after requestsPerMinute is 429 API_KEY_RATE_LIMITED with Retry-After; refused keys use none of it; other keys keep their own":
    async (boot) => {
      const app = await bootApiKeys(boot, { apiKeys: { requestsPerMinute: LIMIT } });
      const user = await member(app, "user@example.test");
      const { key } = await createKey(app, user);
      const other = await createKey(app, user, { name: "Other" });
      // Wrong secrets under the key's own id: refused, their hits given back.
      for (let index = 0; index < LIMIT * 2; index++)
        expectError(await withKey(app, rewritten(key, 20 + index), `wrong ${index}`), 401, "API_KEY_INVALID");
      await app.auth.idle();
      for (let index = 0; index < LIMIT; index++)
        expect((await withKey(app, key, `request ${index + 1}`)).status).toBe(200);
      const limited = await withKey(app, key, "over the limit");
      expectError(limited, 429, "API_KEY_RATE_LIMITED");
      expect(Number(limited.headers.get("retry-after"))).toBeLessThanOrEqual(60);
      expectCode(await withKey(app, key, "over, bearer", "protected", "bearer"), 429, "API_KEY_RATE_LIMITED");
      expect((await withKey(app, other.key, "another key")).status).toBe(200);
    },

  "requireAuth - 20 concurrent requests with one key when requestsPerMinute is 5: exactly 5 pass, the others are 429":
    async (boot) => {
      const app = await bootApiKeys(boot, { apiKeys: { requestsPerMinute: LIMIT } });
      const user = await member(app, "user@example.test");
      const { key } = await createKey(app, user);
      const replies = await Promise.all(
        Array.from({ length: 20 }, (_, index) => withKey(app, key, `concurrent ${index}`)),
      );
      const statuses = replies.map((reply) => reply.status).sort();
      expect(statuses).toEqual([...Array(LIMIT).fill(200), ...Array(20 - LIMIT).fill(429)]);
      for (const reply of replies.filter((each) => each.status === 429))
        expectCode(reply, 429, "API_KEY_RATE_LIMITED");
    },

  "DELETE /api-keys/:id - 10 concurrent deletes of one key: one 200, the others 404": async (boot) => {
    const app = await bootApiKeys(boot);
    const user = await member(app, "user@example.test");
    const { id, key } = await createKey(app, user);
    const replies = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        as(app, user, `delete ${index}`, "DELETE", `/api-keys/${id}`, { record: false }),
      ),
    );
    expect(replies.map((reply) => reply.status).sort()).toEqual([200, ...Array(9).fill(404)]);
    for (const reply of replies.filter((each) => each.status === 404)) expectError(reply, 404, "NOT_FOUND");
    expectError(await withKey(app, key, "deleted"), 401, "API_KEY_INVALID");
  },

  "POST /api-keys - more than maxPerOwner keys is 409 API_KEY_LIMIT_REACHED; expiresInDays over maxExpiresInDays is 400":
    async (boot) => {
      const app = await bootApiKeys(boot, { apiKeys: { maxPerOwner: 2, maxExpiresInDays: 90 } });
      const { owner, organizationId } = await team(app);
      const headers = await stepUp(app, owner);
      const create = (label: string, body: Record<string, unknown>) =>
        as(app, owner, label, "POST", "/api-keys", { body, headers });
      expectError(await create("never expires", { name: "K" }), 400, "VALIDATION_FAILED");
      expectError(await create("too long", { name: "K", expiresInDays: 91 }), 400, "VALIDATION_FAILED");
      const first = await createKey(app, owner, { name: "One", expiresInDays: 90 });
      await createKey(app, owner, { name: "Two", expiresInDays: 1 });
      expectError(await create("third", { name: "Three", expiresInDays: 1 }), 409, "API_KEY_LIMIT_REACHED");
      // The organization's keys count apart from the owner's own.
      const body = { name: "Org", expiresInDays: 1, organizationId, permissions: ["project:read"] };
      await createKey(app, owner, body);
      expect((await as(app, owner, "delete one", "DELETE", `/api-keys/${first.id}`)).status).toBe(200);
      await createKey(app, owner, { name: "Three", expiresInDays: 1 });
    },

  "GET /api-keys - lastUsedAt shows a key's use, written at most once a minute": async (boot) => {
    const app = await bootApiKeys(boot);
    const user = await member(app, "user@example.test");
    const { id, key } = await createKey(app, user);
    const lastUsed = async () => {
      await app.auth.idle();
      const item = (await listKeys(app, user)).items.find((each) => each.id === id);
      return item?.lastUsedAt === null ? null : Date.parse(String(item?.lastUsedAt));
    };
    expect(await lastUsed()).toBeNull();
    const before = app.clock.now();
    expect((await withKey(app, key, "first use")).status).toBe(200);
    const first = await lastUsed();
    expect(first).toBeGreaterThanOrEqual(before);
    expect(first).toBeLessThanOrEqual(app.clock.now());
    app.clock.advance(30_000);
    expect((await withKey(app, key, "half a minute later")).status).toBe(200);
    expect(await lastUsed()).toBe(first);
    app.clock.advance(MINUTE_MS);
    const later = app.clock.now();
    expect((await withKey(app, key, "a minute later")).status).toBe(200);
    expect(await lastUsed()).toBeGreaterThanOrEqual(later);
  },
};

/** Waits out the 60-second window on the suite's fake clock: for cooldown stores on that clock. */
export const apiKeyWindowTests: AppTests = {
  "requireAuth - a rate-limited key passes again once its minute is over": async (boot) => {
    const app = await bootApiKeys(boot, { apiKeys: { requestsPerMinute: LIMIT } });
    const user = await member(app, "user@example.test");
    const { key } = await createKey(app, user);
    for (let index = 0; index < LIMIT; index++)
      expect((await withKey(app, key, `request ${index + 1}`)).status).toBe(200);
    const limited = await withKey(app, key, "over the limit");
    expectError(limited, 429, "API_KEY_RATE_LIMITED");
    app.clock.advance(Number(limited.headers.get("retry-after")) * 1000 - 2_000);
    expectCode(await withKey(app, key, "not yet"), 429, "API_KEY_RATE_LIMITED");
    app.clock.advance(MINUTE_MS);
    for (let index = 0; index < LIMIT; index++)
      expect((await withKey(app, key, `next minute ${index + 1}`)).status).toBe(200);
    expectCode(await withKey(app, key, "over again"), 429, "API_KEY_RATE_LIMITED");
  },
};

/** Keys end with their account (deleted or locked) and their organization; events; API keys off. */
export const apiKeyEndTests: AppTests = {
  "POST /admin/users/:id/lock - the user's own keys are refused at once; the organization's keys they made keep working":
    async (boot) => {
      const app = await bootApiKeys(boot);
      const { owner, organizationId } = await team(app);
      const { own, shared } = await ownAndOrganizationKeys(app, owner, organizationId);
      const admin = await member(app, "admin@example.test");
      const locked = await as(app, admin, "lock", "POST", `/admin/users/${owner.user.id}/lock`, {
        body: { reason: "review" },
        headers: await stepUp(app, admin),
      });
      expect(locked.status, locked.text).toBe(200);
      expectError(await withKey(app, own.key, "own key"), 401, "API_KEY_INVALID");
      expect((await withKey(app, shared.key, "organization's key", "read projects")).status).toBe(200);
    },

  "DELETE /me - the account's keys are refused; an organization that goes with its last member takes its keys":
    async (boot) => {
      const app = await bootApiKeys(boot);
      const solo = await member(app, "solo@example.test");
      const organizationId = await createOrganization(app, solo, "Solo", "solo");
      const { own, shared } = await ownAndOrganizationKeys(app, solo, organizationId);
      expect((await withKey(app, shared.key, "before", "read projects")).status).toBe(200);
      const gone = await as(app, solo, "delete account", "DELETE", "/me", {
        headers: await stepUp(app, solo),
      });
      expect(gone.status, gone.text).toBe(200);
      expectError(await withKey(app, own.key, "own key"), 401, "API_KEY_INVALID");
      expectError(
        await withKey(app, shared.key, "organization's key", "read projects"),
        401,
        "API_KEY_INVALID",
      );
    },

  "DELETE /organizations/:id - the organization's keys are refused at once; its members' own keys stay":
    async (boot) => {
      const app = await bootApiKeys(boot);
      const { owner, organizationId } = await team(app);
      const { own, shared } = await ownAndOrganizationKeys(app, owner, organizationId);
      expect((await withKey(app, shared.key, "before", "read projects")).status).toBe(200);
      const deleted = await as(
        app,
        owner,
        "delete organization",
        "DELETE",
        `/organizations/${organizationId}`,
        {
          headers: await stepUp(app, owner),
        },
      );
      expect(deleted.status, deleted.text).toBe(200);
      expectError(
        await withKey(app, shared.key, "organization's key", "read projects"),
        401,
        "API_KEY_INVALID",
      );
      expectError(
        await withKey(app, shared.key, "organization's key on requireAuth"),
        401,
        "API_KEY_INVALID",
      );
      expect((await withKey(app, own.key, "own key")).status).toBe(200);
    },

  "GET /activity - api_key.created and api_key.deleted are in the caller's activity": async (boot) => {
    const app = await bootApiKeys(boot);
    const { owner, organizationId } = await team(app);
    const { own, shared } = await ownAndOrganizationKeys(app, owner, organizationId);
    for (const { id } of [own, shared])
      expect((await as(app, owner, "delete", "DELETE", `/api-keys/${id}`)).status).toBe(200);
    const activity = await as(app, owner, "activity", "GET", "/activity");
    expect(activity.status).toBe(200);
    const items = activity.body.items as { type: string; organizationId?: string | null }[];
    expect(items.filter((item) => item.type.startsWith("api_key.")).map((item) => item.type)).toEqual([
      "api_key.deleted",
      "api_key.deleted",
      "api_key.created",
      "api_key.created",
    ]);
    expect(activity.text).not.toContain(own.key);
    expect(activity.text).not.toContain(shared.key);
  },

  "apiKeys off - the API key routes are 404 NOT_FOUND and a key is no credential": async (boot) => {
    const app = await bootOrganizations(boot);
    const user = await member(app, "user@example.test");
    const headers = await stepUp(app, user);
    for (const [method, path] of [
      ["POST", "/api-keys"],
      ["GET", "/api-keys"],
      ["DELETE", "/api-keys/some-key"],
    ] as const)
      expectError(
        await as(app, user, `${method} ${path}`, method, path, {
          headers,
          ...(method === "POST" ? { body: { name: "K" } } : {}),
        }),
        404,
        "NOT_FOUND",
      );
    const key = `pc_${"A".repeat(49)}`;
    expectError(await withKey(app, key, "bearer key", "protected", "bearer"), 401, "ACCESS_TOKEN_INVALID");
    expectError(await withKey(app, key, "X-API-Key"), 401, "AUTHENTICATION_REQUIRED");
    // With API keys off, the header means nothing: the access token beside it is what counts.
    const me = await app.api("GET", "/me", {
      label: "me with a key header",
      bearer: user.accessToken,
      headers: { "x-api-key": key },
    });
    expect(me.status, me.text).toBe(200);
  },
};
