import type { LogEvent } from "kysely";
import { Kysely, sql } from "kysely";
import Database from "libsql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AnyKysely, SqlDialect } from "./context.js";
import { auditFillStatements, auditListingsOffIndex, auditLogCalls } from "./query-plans-audit.js";
import { scimCalls, scimFillStatements } from "./query-plans-scim.js";
import { ssoCalls, ssoFillStatements } from "./query-plans-sso.js";
import type { HotCalls, PlannedStores } from "./query-plans-support.js";
import { webhookCalls, webhookFillStatements } from "./query-plans-webhooks.js";
import { createSqlStores } from "./sql-stores.js";
import { createSqliteDialect } from "./sqlite-dialect.js";
import { plainPostgresDb, postgresDatabase, usePostgres } from "./test-databases.js";

// Every hot query of the stores is planned on full tables: each table holds ROWS rows (cooldowns
// and counters twice as many) and has been ANALYZEd, so a planner without a usable index would
// pick a sequential scan. Each statement the stores send is explained (PostgreSQL `EXPLAIN`,
// SQLite `EXPLAIN QUERY PLAN`) and a full scan of a store table fails the test.
const ROWS = 20_000;
const NOW = Date.UTC(2026, 10, 26);
const clock = { now: () => NOW };

interface Sent {
  sql: string;
  parameters: readonly unknown[];
}

/** A Kysely on `dialect` whose statements are kept in `sent` while `recording` is set. */
function recorder() {
  const state = { recording: false, sent: [] as Sent[] };
  const log = (event: LogEvent) => {
    if (state.recording && event.level === "query")
      state.sent.push({ sql: event.query.sql, parameters: event.query.parameters });
  };
  return { state, log };
}

/** Rows 1..n of `select … from <n numbers>`, in the dialect's way. */
function fillStatements(dialect: SqlDialect): string[] {
  const series = (n: number, select: string, table: string, columns: string) =>
    dialect === "postgres"
      ? `insert into ${table} (${columns}) select ${select} from generate_series(1, ${n}) as g(n)`
      : `insert into ${table} (${columns}) with recursive g(n) as (select 1 union all select n + 1 from g where n < ${n}) select ${select} from g`;
  const no = dialect === "postgres" ? "false" : "0";
  const later = NOW + 86_400_000;
  return [
    series(
      ROWS,
      `'u' || n, 'user' || n || '@example.test', ${no}, '[]', '[]', '[]', ${NOW}`,
      "portcullis_users",
      "id, email, email_verified, identity_providers, two_factor_methods, recovery_code_hashes, created_at",
    ),
    series(
      ROWS,
      `'s' || n, 'u' || n, ${NOW}, ${NOW}, 'rh' || n, '[]', 'j' || n, ${later}, ${later}`,
      "portcullis_sessions",
      "id, user_id, created_at, last_active_at, refresh_token_hash, previous_refresh_token_hashes, access_token_jti, access_token_expires_at, expires_at",
    ),
    series(
      ROWS,
      `'j' || n, 'u' || n, 's' || n, ${later}`,
      "portcullis_access_tokens",
      "jti, user_id, session_id, expires_at",
    ),
    series(
      ROWS,
      `'password-reset', 'th' || n, 'u' || n, ${later}, ${later}`,
      "portcullis_tokens",
      "purpose, token_hash, user_id, expires_at, delete_at",
    ),
    series(2 * ROWS, `'k' || n, 'h', ${later}`, "portcullis_cooldowns", "id, holder, expires_at"),
    series(2 * ROWS, `'k' || n, 1, ${later}`, "portcullis_counters", "id, hits, expires_at"),
    series(
      ROWS,
      `'https://issuer.example', 'sub' || n, 'u' || n, 'github', ${NOW}`,
      "portcullis_identities",
      "issuer, subject, user_id, provider, created_at",
    ),
    series(
      ROWS,
      `'pk' || n, 'pk' || n, 'u' || n, 'key', 0, '[]', ${no}, ${no}, 'key', ${NOW}`,
      "portcullis_passkeys",
      "id, credential_id, user_id, public_key, counter, transports, backup_eligible, backed_up, name, created_at",
    ),
    series(ROWS, `'a' || n, 'u' || n, 'login', ${NOW}`, "portcullis_activity", "id, user_id, type, at"),
    series(
      ROWS,
      `'g' || n, 'c' || n, 'u' || n, '[]', '[]', 'rh' || n, ${NOW}, ${later}`,
      "portcullis_oauth_grants",
      "grant_id, client_id, user_id, scopes, resources, refresh_hash, created_at, expires_at",
    ),
    series(
      ROWS,
      `'dc' || n, 'uc' || n, 'c' || n, '[]', '[]', 'pending', 5, ${later}`,
      "portcullis_oauth_devices",
      "device_code_hash, user_code_hash, client_id, scopes, resources, status, interval_seconds, expires_at",
    ),
    series(
      ROWS,
      `'o' || n, 'Org ' || n, 'org ' || n, 'org-' || n, ${NOW}`,
      "portcullis_organizations",
      "id, name, search_name, slug, created_at",
    ),
    series(
      ROWS,
      `'o' || n, 'u' || n, 'owner', ${NOW}`,
      "portcullis_memberships",
      "organization_id, user_id, role, joined_at",
    ),
    series(
      ROWS,
      `'o' || n, 'editor', '[]', ${NOW}`,
      "portcullis_organization_roles",
      "organization_id, name, permissions, created_at",
    ),
    series(
      ROWS,
      `'i' || n, 'o' || n, 'guest' || n || '@example.test', 'member', 'ih' || n, 'u' || n, ${NOW}, ${later}`,
      "portcullis_invitations",
      "id, organization_id, email, role, token_hash, invited_by, created_at, expires_at",
    ),
    series(
      ROWS,
      `'k' || n, 'lk' || n, 'kh' || n, 'Key', 'pc_key', 'u' || n, case when n % 2 = 0 then 'o' || n end, ${NOW}`,
      "portcullis_api_keys",
      "id, lookup_id, key_hash, name, start, user_id, organization_id, created_at",
    ),
    ...auditFillStatements(series, ROWS, NOW),
    ...webhookFillStatements(series, dialect, ROWS, NOW),
    ...ssoFillStatements(series, dialect, ROWS, NOW),
    ...scimFillStatements(series, dialect, ROWS, NOW),
    "analyze",
  ];
}

/** Every hot call of the stores, each by the name the failure message gives. */
function hotCalls(stores: PlannedStores): HotCalls {
  const rotation = { refreshTokenHash: "rh-next", accessTokenJti: "j-next", lastActiveAt: NOW };
  return [
    ["users.findByEmail", () => stores.users.findByEmail("user5@example.test")],
    ["users.findById", () => stores.users.findById("u5")],
    ["users.update", () => stores.users.update("u6", { name: "Six" })],
    ["users.recordSignIn", () => stores.users.recordSignIn?.("u7", NOW) ?? Promise.resolve()],
    [
      "users.recordSignInIfUnchanged",
      () => stores.users.recordSignInIfUnchanged?.("u9", NOW, "x") ?? stores.users.findById("u9"),
    ],
    [
      "users.replacePasswordHash",
      () => stores.users.replacePasswordHash?.("u8", "x", "y") ?? Promise.resolve(),
    ],
    [
      "users.listUsers (first page)",
      () => stores.users.listUsers?.({ prefix: "", limit: 20 }) ?? Promise.resolve(),
    ],
    [
      "users.listUsers (prefix, after)",
      () =>
        stores.users.listUsers?.({ prefix: "user1", after: "user1000@example.test", limit: 20 }) ??
        Promise.resolve(),
    ],
    ["sessions.getSession", () => stores.sessions.getSession("s5")],
    ["sessions.listSessions", () => stores.sessions.listSessions("u5")],
    [
      "sessions.rotateRefreshToken",
      () =>
        stores.sessions.rotateRefreshToken("s9", "rh9", rotation, 86_400_000, 10_000, {
          idleTimeoutMs: 86_400_000,
          absoluteLifetimeMs: 30 * 86_400_000,
        }),
    ],
    [
      "sessions.rotateRefreshToken (after getSession)",
      async () => {
        await stores.sessions.getSession("s8");
        return stores.sessions.rotateRefreshToken(
          "s8",
          "rh8",
          { ...rotation, refreshTokenHash: "rh-8", accessTokenJti: "j-8" },
          86_400_000,
          10_000,
          undefined,
        );
      },
    ],
    ["sessions.deleteSession", () => stores.sessions.deleteSession("s10")],
    ["sessions.deleteUserSessions", () => stores.sessions.deleteUserSessions("u11", "s0")],
    ["allowlist.findAllowedAccessToken", () => stores.allowlist.findAllowedAccessToken("j5")],
    [
      "joint.findAllowedAccessTokenWithUser",
      () => stores.joint.findAllowedAccessTokenWithUser?.("j5") ?? Promise.resolve(),
    ],
    [
      "joint.findAllowedAccessTokenWithMembership",
      () => stores.joint.findAllowedAccessTokenWithMembership?.("j5", "o5") ?? Promise.resolve(),
    ],
    ["allowlist.revokeAccessTokens", () => stores.allowlist.revokeAccessTokens(["j12", "j13"])],
    ["singleUseTokens.consumeToken", () => stores.singleUseTokens.consumeToken("password-reset", "th5")],
    [
      "singleUseTokens.claimToken",
      () => stores.singleUseTokens.claimToken?.("password-reset", "th6", 60_000) ?? Promise.resolve(),
    ],
    [
      "singleUseTokens.releaseToken",
      () => stores.singleUseTokens.releaseToken?.("password-reset", "th6") ?? Promise.resolve(),
    ],
    [
      "singleUseTokens.deleteUserTokens",
      () => stores.singleUseTokens.deleteUserTokens("u7", "password-reset"),
    ],
    ["cooldowns.acquire", () => stores.cooldowns.acquire("k5", 60_000)],
    ["cooldowns.remainingMs", () => stores.cooldowns.remainingMs("k6")],
    ["cooldowns.release", () => stores.cooldowns.release("k7")],
    ["cooldowns.hit", () => stores.cooldowns.hit("k8", 60_000)],
    ["cooldowns.refundHit", () => stores.cooldowns.refundHit("k8")],
    ["cooldowns.clearHits", () => stores.cooldowns.clearHits("k9")],
    ["cooldowns.clearKeys", () => stores.cooldowns.clearKeys?.(["k10"], ["k11", "k12"]) ?? Promise.resolve()],
    ["identities.findBySubject", () => stores.identities.findBySubject("https://issuer.example", "sub5")],
    ["identities.listByUser", () => stores.identities.listByUser("u5")],
    ["identities.unlink", () => stores.identities.unlink("u6", "github", { keepAtLeast: 1 })],
    ["passkeys.findById", () => stores.passkeys.findById("pk5")],
    ["passkeys.listByUser", () => stores.passkeys.listByUser("u5")],
    [
      "passkeys.recordUse",
      () =>
        stores.passkeys.recordUse("pk6", { expectedCounter: 0, counter: 1, backedUp: false, usedAt: NOW }),
    ],
    ["passkeys.rename", () => stores.passkeys.rename("u7", "pk7", "Laptop")],
    ["passkeys.delete", () => stores.passkeys.delete("u8", "pk8", { keepAtLeast: 0 })],
    ["activity.list", () => stores.activity.list("u5", { limit: 20, since: NOW - 86_400_000 })],
    ["sweep", () => stores.sweep()],
    ["activity.sweepActivity", () => stores.activity.sweepActivity(NOW - 90 * 86_400_000)],
    ...organizationCalls(stores),
    ...apiKeyCalls(stores),
    ...auditLogCalls(stores, NOW, ROWS),
    ...webhookCalls(stores, NOW, ROWS),
    ...ssoCalls(stores, NOW),
    ...scimCalls(stores, NOW),
  ];
}

/** The organization store's calls of every request of a member, and its changes. */
function organizationCalls(stores: PlannedStores): HotCalls {
  const organizations = stores.organizations;
  const invitation = {
    id: "i-new",
    organizationId: "o9",
    email: "guest9@example.test",
    role: "member",
    tokenHash: "ih-new",
    invitedBy: "u9",
    createdAt: NOW,
    expiresAt: NOW + 86_400_000,
  };
  return [
    [
      "sessions.setActiveOrganization",
      () => stores.sessions.setActiveOrganization?.("s5", "o5") ?? Promise.resolve(),
    ],
    ["organizations.findOrganization", () => organizations.findOrganization("o5")],
    [
      "organizations.findOrganizationBySlug",
      () => organizations.findOrganizationBySlug?.("org-5") ?? Promise.resolve(),
    ],
    ["organizations.findMembership", () => organizations.findMembership("o5", "u5")],
    ["organizations.listMembershipsOfUser", () => organizations.listMembershipsOfUser("u5")],
    [
      "organizations.listMembers (two pages)",
      async () => {
        const { nextCursor } = await organizations.listMembers("o5", { limit: 1 });
        return organizations.listMembers("o5", { limit: 1, cursor: nextCursor ?? undefined });
      },
    ],
    [
      "organizations.listOrganizations (first page)",
      () => organizations.listOrganizations({ query: "", limit: 20 }),
    ],
    ["organizations.changeMemberRole", () => organizations.changeMemberRole("o6", "u6", "admin")],
    ["organizations.removeMember", () => organizations.removeMember("o7", "u7")],
    ["organizations.listRoles", () => organizations.listRoles("o5")],
    ["organizations.deleteRole", () => organizations.deleteRole("o8", "editor")],
    ["organizations.createInvitation", () => organizations.createInvitation(invitation)],
    ["organizations.findInvitationByTokenHash", () => organizations.findInvitationByTokenHash("ih5")],
    ["organizations.listInvitations", () => organizations.listInvitations("o5", NOW)],
    [
      "organizations.listInvitationsForEmail",
      () => organizations.listInvitationsForEmail("guest5@example.test", NOW),
    ],
    ["organizations.acceptInvitation", () => organizations.acceptInvitation("ih10", "u-new", NOW)],
    ["organizations.removeUser", () => organizations.removeUser("u11")],
    ["organizations.deleteOrganization", () => organizations.deleteOrganization("o12")],
  ];
}

/** The API key store's calls: the read of every request with a key, its touch, and the changes. */
function apiKeyCalls(stores: PlannedStores): HotCalls {
  const apiKeys = stores.apiKeys;
  return [
    ["apiKeys.useApiKey", () => apiKeys.useApiKey("lk5", 60_000, 1)],
    ["apiKeys.findApiKeyByLookupId", () => apiKeys.findApiKeyByLookupId("lk5")],
    ["apiKeys.findApiKey", () => apiKeys.findApiKey("k5")],
    ["apiKeys.touchApiKey", () => apiKeys.touchApiKey("k5", NOW, 60_000)],
    ["apiKeys.listApiKeys (user)", () => apiKeys.listApiKeys({ userId: "u5", organizationId: null })],
    ["apiKeys.listApiKeys (organization)", () => apiKeys.listApiKeys({ organizationId: "o6" })],
    ["apiKeys.deleteApiKey", () => apiKeys.deleteApiKey("k7")],
    ["apiKeys.deleteUserApiKeys", () => apiKeys.deleteUserApiKeys("u9")],
    ["apiKeys.deleteOrganizationApiKeys", () => apiKeys.deleteOrganizationApiKeys("o10")],
  ];
}

/** Statements of no plan: transaction control and SQLite pragmas. */
const planless = (text: string) =>
  /^\s*(begin|start transaction|commit|rollback|savepoint|release|pragma)\b/i.test(text);

/** The full scans of store tables in a plan (PostgreSQL's text plan or SQLite's `detail` column). */
function fullScans(dialect: SqlDialect, lines: string[]): string[] {
  const scan =
    dialect === "postgres"
      ? /Seq Scan on (portcullis_\w+)/
      : /^SCAN (portcullis_\w+)(?! USING (?:COVERING )?INDEX)(?:\s|$)/;
  return lines.flatMap((line) => {
    const match = scan.exec(line.trim());
    return match?.[1] ? [match[1]] : [];
  });
}

async function explain(db: AnyKysely, dialect: SqlDialect, sent: Sent): Promise<string[]> {
  if (dialect === "postgres") {
    const { rows } = await db.executeQuery<{ "QUERY PLAN": string }>({
      sql: `explain ${sent.sql}`,
      parameters: sent.parameters,
      query: { kind: "RawNode" } as never,
      queryId: { queryId: "explain" },
    });
    return rows.map((row) => row["QUERY PLAN"]);
  }
  const { rows } = await db.executeQuery<{ detail: string }>({
    sql: `explain query plan ${sent.sql}`,
    parameters: sent.parameters,
    query: { kind: "RawNode" } as never,
    queryId: { queryId: "explain" },
  });
  return rows.map((row) => row.detail);
}

/** Each hot call's statements and their full scans of store tables, on stores over `db`. */
async function plansOf(db: AnyKysely, dialect: SqlDialect, state: { recording: boolean; sent: Sent[] }) {
  const stores = createSqlStores({ db, clock });
  await stores.migrate();
  for (const statement of fillStatements(dialect)) await sql.raw(statement).execute(db);
  const found: { call: string; statement: string; scans: string[]; plan: string[] }[] = [];
  let statements = 0;
  for (const [call, run] of hotCalls(stores)) {
    state.sent = [];
    state.recording = true;
    try {
      await run();
    } finally {
      state.recording = false;
    }
    expect(state.sent.length, `${call} sent no statement`).toBeGreaterThan(0);
    for (const sent of state.sent) {
      if (planless(sent.sql)) continue;
      statements += 1;
      const plan = await explain(db, dialect, sent);
      found.push({ call, statement: sent.sql, scans: fullScans(dialect, plan), plan });
    }
  }
  return { found, statements };
}

/**
 * The plan of the API key read of every request that carries a key (`useApiKey`, its statements
 * together): it must read the unique index on `lookup_id` (PostgreSQL names it; SQLite's unique
 * constraint is an automatic index).
 */
function lookupIdPlan(dialect: SqlDialect, found: Awaited<ReturnType<typeof plansOf>>["found"]) {
  const plan = found
    .filter(({ call }) => call === "apiKeys.useApiKey")
    .flatMap((statement) => statement.plan);
  const unique =
    dialect === "postgres"
      ? /Index Scan using portcullis_api_keys_lookup_id_key on portcullis_api_keys/
      : /^SEARCH portcullis_api_keys USING INDEX sqlite_autoindex_portcullis_api_keys_\d+ \(lookup_id=\?\)/;
  return { plan, usesUniqueIndex: plan.some((line) => unique.test(line.trim())) };
}

const failures = (found: Awaited<ReturnType<typeof plansOf>>["found"]) =>
  found
    .filter(({ scans }) => scans.length > 0)
    .map(({ call, statement, plan }) => `${call}: ${statement}\n  ${plan.join("\n  ")}`);

describe("query plans on postgres", () => {
  let server: Awaited<ReturnType<typeof usePostgres>>;
  let database: Awaited<ReturnType<typeof postgresDatabase>>;
  let db: AnyKysely;
  const { state, log } = recorder();
  beforeAll(async () => {
    server = await usePostgres();
    database = await postgresDatabase(server.url);
    db = plainPostgresDb(database.url, 2, log);
  }, 60_000);
  afterAll(async () => {
    await db?.destroy();
    await database?.drop();
    await server?.stop();
  }, 60_000);

  it("every hot query - an index, no sequential scan of a store table, at 20,000 rows", async () => {
    const { found, statements } = await plansOf(db, "postgres", state);
    expect(statements).toBeGreaterThan(30);
    expect(failures(found)).toEqual([]);
    expect(auditListingsOffIndex(found)).toEqual([]);
    const lookup = lookupIdPlan("postgres", found);
    expect(lookup.usesUniqueIndex, lookup.plan.join("\n")).toBe(true);
  }, 120_000);

  it("the check - a query without an index is reported as a sequential scan", async () => {
    const plan = await explain(db, "postgres", {
      sql: "select * from portcullis_sessions where browser = $1",
      parameters: ["Firefox"],
    });
    expect(fullScans("postgres", plan)).toEqual(["portcullis_sessions"]);
  }, 60_000);
});

describe("query plans on sqlite", () => {
  const { state, log } = recorder();
  const db: AnyKysely = new Kysely({
    dialect: createSqliteDialect({ database: new Database(":memory:") }),
    log,
  });
  afterAll(async () => {
    await db.destroy();
  });

  it("every hot query - an index, no full scan of a store table, at 20,000 rows", async () => {
    const { found, statements } = await plansOf(db, "sqlite", state);
    expect(statements).toBeGreaterThan(30);
    expect(failures(found)).toEqual([]);
    expect(auditListingsOffIndex(found)).toEqual([]);
    const lookup = lookupIdPlan("sqlite", found);
    expect(lookup.usesUniqueIndex, lookup.plan.join("\n")).toBe(true);
  }, 120_000);

  it("the check - a query without an index is reported as a full scan", async () => {
    const plan = await explain(db, "sqlite", {
      sql: "select * from portcullis_sessions where browser = ?",
      parameters: ["Firefox"],
    });
    expect(fullScans("sqlite", plan)).toEqual(["portcullis_sessions"]);
  });
});
