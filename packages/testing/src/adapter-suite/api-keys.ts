import { describe, expect } from "vitest";
import { apiKeyEndTests, apiKeyLimitTests, apiKeyWindowTests } from "./api-keys-ends.js";
import {
  bootApiKeys,
  createKey,
  expectKeyNotAllowed,
  type KeyHeader,
  listKeys,
  mistyped,
  rewritten,
  sentWith,
  withKey,
} from "./api-keys-fixture.js";
import { type AdapterSuiteOptions, type AppTests, expectError, runAppTests } from "./fixture.js";
import { as, member, stepUp, team } from "./organization-fixture.js";

const DAY_MS = 24 * 3600 * 1000;
const KEY_PATTERN = /^pc_[0-9A-Za-z]{49}$/;

const apiKeyTests: AppTests = {
  "POST /api-keys - needs a step-up; the key (pc_ + 49 base62) is in the answer only; GET lists newest first without it; DELETE removes it":
    async (boot) => {
      const app = await bootApiKeys(boot);
      const user = await member(app, "user@example.test");
      const path = "/api-keys";
      expectError(
        await as(app, user, "no step-up", "POST", path, { body: { name: "CI" } }),
        401,
        "STEP_UP_REQUIRED",
      );
      const first = await createKey(app, user, { name: "CI" });
      expect(first.key).toMatch(KEY_PATTERN);
      expect(first.apiKey).toEqual({
        id: expect.any(String),
        name: "CI",
        start: first.key.slice(0, 11),
        createdAt: expect.any(String),
        expiresAt: null,
        lastUsedAt: null,
        organizationId: null,
        permissions: null,
      });
      const second = await createKey(app, user, { name: "Deploy", expiresInDays: 30 });
      expect(Date.parse(String(second.apiKey.expiresAt)) - Date.parse(String(second.apiKey.createdAt))).toBe(
        30 * DAY_MS,
      );
      const { reply, items } = await listKeys(app, user);
      expect(items).toEqual([second.apiKey, first.apiKey]);
      expect(reply.text).not.toContain(first.key.slice(11));
      expect(reply.text).not.toContain(second.key.slice(11));
      const headers = await stepUp(app, user);
      for (const body of [
        {},
        { name: "" },
        { name: "x", permissions: ["project:read"] },
        { name: "x", expiresInDays: 0 },
      ])
        expectError(
          await as(app, user, "bad body", "POST", path, { body, headers }),
          400,
          "VALIDATION_FAILED",
        );
      const other = await member(app, "other@example.test");
      expect((await listKeys(app, other)).items).toEqual([]);
      expectError(await as(app, other, "another's key", "DELETE", `${path}/${first.id}`), 404, "NOT_FOUND");
      const deleted = await as(app, user, "delete", "DELETE", `${path}/${first.id}`);
      expect(deleted.status).toBe(200);
      expect(deleted.body).toEqual({ success: true });
      expect((await listKeys(app, user)).items).toEqual([second.apiKey]);
      expectError(await as(app, user, "delete again", "DELETE", `${path}/${first.id}`), 404, "NOT_FOUND");
    },

  "requireAuth - a user's key passes as X-API-Key and as a bearer token; requirePermission is 403 NO_ACTIVE_ORGANIZATION":
    async (boot) => {
      const app = await bootApiKeys(boot);
      const user = await member(app, "user@example.test");
      const { id, key } = await createKey(app, user);
      for (const via of ["x-api-key", "bearer"] as KeyHeader[]) {
        const reply = await withKey(app, key, `requireAuth ${via}`, "protected", via);
        expect(reply.status, reply.text).toBe(200);
        expect(reply.body).toEqual({ userId: user.user.id, sessionId: `api-key:${id}` });
        expectError(await withKey(app, key, "read", "read projects", via), 403, "NO_ACTIVE_ORGANIZATION");
      }
    },

  "requirePermission - an organization's key passes exactly the permissions it was given": async (boot) => {
    const app = await bootApiKeys(boot);
    const { owner, organizationId } = await team(app);
    const reader = await createKey(app, owner, {
      name: "Reader",
      organizationId,
      permissions: ["project:read"],
    });
    expect(reader.apiKey).toMatchObject({ organizationId, permissions: ["project:read"] });
    const read = await withKey(app, reader.key, "reader reads", "read projects");
    expect(read.status, read.text).toBe(200);
    expect(read.body).toEqual({ organizationId });
    expectError(await withKey(app, reader.key, "reader writes", "write projects"), 403, "PERMISSION_DENIED");
    const protectedReply = await withKey(app, reader.key, "reader on requireAuth");
    expect(protectedReply.body).toEqual({ userId: owner.user.id, sessionId: `api-key:${reader.id}` });
    const writer = await createKey(app, owner, {
      name: "Writer",
      organizationId,
      permissions: ["project:read", "project:write"],
    });
    const wrote = await withKey(app, writer.key, "writer writes", "write projects", "bearer");
    expect(wrote.status, wrote.text).toBe(200);
    expect(wrote.body).toEqual({ organizationId });
    const { items } = await listKeys(app, owner, organizationId);
    expect(items.map((item) => item.id)).toEqual([writer.id, reader.id]);
    expect(items[0]).toMatchObject({
      lastUsedAt: expect.any(String),
      permissions: ["project:read", "project:write"],
    });
    expect((await listKeys(app, owner)).items).toEqual([]);
  },

  "POST /api-keys - an organization's key: a non-member is 404, a member without api-key:manage 403 on create, list and delete, permissions the creator lacks 403, unknown ones 400":
    async (boot) => {
      const app = await bootApiKeys(boot);
      const { owner, plain, organizationId } = await team(app);
      const ownerKey = await createKey(app, owner, {
        name: "Owner's",
        organizationId,
        permissions: ["project:read"],
      });
      const body = { name: "K", organizationId, permissions: ["project:read"] };
      const outsider = await member(app, "outsider@example.test");
      const outsiderHeaders = await stepUp(app, outsider);
      expectError(
        await as(app, outsider, "outsider creates", "POST", "/api-keys", { body, headers: outsiderHeaders }),
        404,
        "ORGANIZATION_NOT_FOUND",
      );
      const listPath = `/api-keys?organizationId=${organizationId}`;
      expectError(await as(app, outsider, "outsider lists", "GET", listPath), 404, "ORGANIZATION_NOT_FOUND");
      const plainHeaders = await stepUp(app, plain);
      expectError(
        await as(app, plain, "member creates", "POST", "/api-keys", { body, headers: plainHeaders }),
        403,
        "PERMISSION_DENIED",
      );
      expectError(await as(app, plain, "member lists", "GET", listPath), 403, "PERMISSION_DENIED");
      // A delete someone may not make answers as for a key that does not exist (nobody learns of it).
      const deletePath = `/api-keys/${ownerKey.id}`;
      expectError(await as(app, plain, "member deletes", "DELETE", deletePath), 404, "NOT_FOUND");
      expectError(await as(app, outsider, "outsider deletes", "DELETE", deletePath), 404, "NOT_FOUND");
      expect((await withKey(app, ownerKey.key, "still there", "read projects")).status).toBe(200);
      const role = await as(app, owner, "keymaster role", "POST", `/organizations/${organizationId}/roles`, {
        body: { name: "keymaster", permissions: ["api-key:manage", "project:read"] },
      });
      expect(role.status, role.text).toBe(201);
      const path = `/organizations/${organizationId}/members/${plain.user.id}`;
      expect(
        (await as(app, owner, "to keymaster", "PATCH", path, { body: { role: "keymaster" } })).status,
      ).toBe(200);
      const lacking = { ...body, permissions: ["project:read", "project:write"] };
      expectError(
        await as(app, plain, "more than held", "POST", "/api-keys", { body: lacking, headers: plainHeaders }),
        403,
        "PERMISSION_DENIED",
      );
      const unknown = { ...body, permissions: ["project:fly"] };
      expectError(
        await as(app, plain, "unknown permission", "POST", "/api-keys", {
          body: unknown,
          headers: plainHeaders,
        }),
        400,
        "VALIDATION_FAILED",
      );
      const withoutPermissions = { name: "K", organizationId };
      expectError(
        await as(app, plain, "no permissions", "POST", "/api-keys", {
          body: withoutPermissions,
          headers: plainHeaders,
        }),
        400,
        "VALIDATION_FAILED",
      );
      const made = await createKey(app, plain, body);
      expect((await listKeys(app, plain, organizationId)).items.map((item) => item.id)).toEqual([
        made.id,
        ownerKey.id,
      ]);
      expect((await as(app, plain, "keymaster deletes", "DELETE", deletePath)).status).toBe(200);
    },

  "requirePermission - an organization's key keeps working after its creator leaves the organization": async (
    boot,
  ) => {
    const app = await bootApiKeys(boot);
    const { owner, admin, organizationId } = await team(app);
    const { key } = await createKey(app, admin, {
      name: "Admin's",
      organizationId,
      permissions: ["project:write"],
    });
    expect((await withKey(app, key, "before", "write projects")).status).toBe(200);
    const path = `/organizations/${organizationId}/members/${admin.user.id}`;
    expect((await as(app, owner, "remove the creator", "DELETE", path)).status).toBe(200);
    const after = await withKey(app, key, "after", "write projects");
    expect(after.status, after.text).toBe(200);
    expect(after.body).toEqual({ organizationId });
    expect((await listKeys(app, owner, organizationId)).items).toHaveLength(1);
  },

  "requireAuth - a deleted key is 401 API_KEY_INVALID on the very next request; an organization's key is deleted by another manager":
    async (boot) => {
      const app = await bootApiKeys(boot);
      const { owner, admin, organizationId } = await team(app);
      const own = await createKey(app, owner);
      expect((await withKey(app, own.key, "before")).status).toBe(200);
      expect((await as(app, owner, "delete own", "DELETE", `/api-keys/${own.id}`)).status).toBe(200);
      expectError(await withKey(app, own.key, "deleted"), 401, "API_KEY_INVALID");
      expectError(
        await withKey(app, own.key, "deleted, bearer", "protected", "bearer"),
        401,
        "API_KEY_INVALID",
      );
      const shared = await createKey(app, admin, {
        name: "Shared",
        organizationId,
        permissions: ["project:read"],
      });
      expect((await withKey(app, shared.key, "shared before", "read projects")).status).toBe(200);
      expect((await as(app, owner, "owner deletes", "DELETE", `/api-keys/${shared.id}`)).status).toBe(200);
      expectError(await withKey(app, shared.key, "shared deleted", "read projects"), 401, "API_KEY_INVALID");
    },

  "requireAuth - an expired key is 401 API_KEY_INVALID once its expiresAt has come": async (boot) => {
    const app = await bootApiKeys(boot);
    const user = await member(app, "user@example.test");
    const { key } = await createKey(app, user, { name: "Short", expiresInDays: 1 });
    app.clock.advance(DAY_MS - 60_000);
    expect((await withKey(app, key, "a minute before")).status).toBe(200);
    app.clock.advance(60_000);
    expectError(await withKey(app, key, "expired"), 401, "API_KEY_INVALID");
    expectError(await withKey(app, key, "expired, bearer", "protected", "bearer"), 401, "API_KEY_INVALID");
  },

  "requireAuth - a mistyped, cut, padded or rewritten key is 401 API_KEY_INVALID; the real one still passes":
    async (boot) => {
      const app = await bootApiKeys(boot);
      const user = await member(app, "user@example.test");
      const { key } = await createKey(app, user);
      const wrong = [
        mistyped(key, 5),
        mistyped(key, 30),
        mistyped(key, 50),
        key.slice(0, -1),
        key.slice(0, 30),
        `${key}A`,
        key.toLowerCase(),
        rewritten(key, 2),
        rewritten(key, 40),
        "pc_",
      ];
      for (const [index, candidate] of wrong.entries()) {
        expect(candidate).not.toBe(key);
        expectError(await withKey(app, candidate, `wrong ${index}`), 401, "API_KEY_INVALID");
        expectError(
          await withKey(app, candidate, `wrong ${index}`, "protected", "bearer"),
          401,
          "API_KEY_INVALID",
        );
      }
      expect((await withKey(app, key, "the real one")).status).toBe(200);
    },

  "auth routes - every auth route answers a request carrying an API key with 403 API_KEY_NOT_ALLOWED, an access token beside it or not":
    async (boot) => {
      const app = await bootApiKeys(boot);
      const user = await member(app, "user@example.test");
      const { key, id } = await createKey(app, user);
      const routes: [string, string, unknown?][] = [
        ["GET", "/me"],
        ["DELETE", "/me"],
        ["GET", "/sessions"],
        ["POST", "/password/change", { currentPassword: "x", newPassword: "a brand new passphrase" }],
        ["POST", "/step-up", { password: "x" }],
        ["GET", "/api-keys"],
        ["POST", "/api-keys", { name: "From a key" }],
        ["DELETE", `/api-keys/${id}`],
        ["GET", "/activity"],
        ["POST", "/organizations", { name: "Keyed" }],
      ];
      // The key alone, either way, and the key in its header beside the user's own access token.
      const ways = [...sentWith(key), { bearer: user.accessToken, headers: { "x-api-key": key } }];
      for (const route of routes) await expectKeyNotAllowed(app, route, ways);
      expect((await listKeys(app, user)).items).toHaveLength(1);
      expect((await withKey(app, key, "still works")).status).toBe(200);
    },
};

/** API keys: their routes, the host guards with a key, limits, and how keys end. */
export const apiKeysTests: AppTests = { ...apiKeyTests, ...apiKeyLimitTests, ...apiKeyEndTests };

/**
 * API keys, with a transcript: `start` must mount the suite's host routes (`GET /host/protected`
 * behind requireAuth, `GET`/`POST /host/projects` behind requirePermission project:read and
 * project:write). `createStores` must include `apiKeys` and `organizations`. The tests move the
 * suite's fake clock for expiries and `lastUsedAt`; with `storeNow` (a cooldown store on its own
 * clock, as Redis) the test that waits out the 60-second request window is left out.
 */
export function runApiKeysAdapterSuite(
  options: Pick<AdapterSuiteOptions, "name" | "start" | "createStores" | "transcripts" | "storeNow">,
): void {
  const tests = options.storeNow === undefined ? { ...apiKeysTests, ...apiKeyWindowTests } : apiKeysTests;
  describe(`api keys: ${options.name}`, () => runAppTests(options, "api-keys", tests));
}
