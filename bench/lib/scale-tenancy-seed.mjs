// Seeding for bench/scale-tenancy.mjs: rows of store-sql's tables (PostgreSQL, prefix
// `portcullis_`) as its stores write them, one `INSERT … SELECT generate_series` per table, for a
// range (from, to] of members, API keys or audit entries, so the same database grows from the
// small size to the full one. Ids, addresses and tokens are functions of the row's number, so the
// benchmark can pick any seeded row:
//
// - member m (user `u<m>`, one membership each) belongs to organization (m - 1) / 10 + 1, whose
//   first member is its owner, the second of its custom role `billing` (project:read) and the
//   others members; each user has one session (`s<m>`, access token `j<m>` on the allowlist)
//   working in that organization, like a signed-in member's.
// - organization o (`o<o>`, 10 members) has the custom role, one SSO connection (`sc<o>`, SAML,
//   SCIM on, SCIM token `scimToken(o)`, one verified domain `org<o>.example`), one SCIM group
//   (`sg<o>`) and a SCIM user per member (`su<m>`, userName the member's address, in the group).
// - API key k belongs to member (k - 1) % members + 1; every other key is an organization's (with
//   a permission), the rest the user's own. Lookup ids and hashes are random-looking (md5), so no
//   seeded key authenticates: the benchmark creates the keys it sends through the API.
// - audit entry `seq` s (the deployment's chain): every tenth belongs to organization 1 (the big
//   customer whose log is paged), four in ten to no organization (sign-ins and the like) and five
//   in ten to the other organizations in turn. `hash` is md5('h' || s), `prev_hash` the previous
//   entry's, `org_prev_hash` the previous entry's of the same organization ('' for its first):
//   chained like the store's, though no hash verifies (the benchmark never calls verify). Entry s
//   is 180 days old plus s seconds: inside the default retention (365 days), else the core's
//   retention sweep, started by its first append, would delete the seeded entries. The heads
//   (`audit_heads`) end on the last entry of each chain, so the core's own appends continue them.
import { createHash } from "node:crypto";

export const MEMBERS_PER_ORGANIZATION = 10;
const HOUR = 3_600_000;

/** Member m's address (also its SCIM userName): lower case, unique, its organization's domain. */
export const memberEmail = (m) => `m${m}@org${organizationOf(m)}.example`;
export const organizationOf = (m) => Math.floor((m - 1) / MEMBERS_PER_ORGANIZATION) + 1;
/** Organization o's SCIM bearer token, and in SQL (`scimToken` of the expression `o`). */
export const scimToken = (o) => `scim_bench_token_${o}`;
const SQL_SCIM_HASH = (o) =>
  `rtrim(translate(encode(sha256(convert_to('scim_bench_token_' || ${o}, 'UTF8')), 'base64'), '+/', '-_'), '=')`;
/** The SCIM token's hash as the SSO plugin stores it (`hashOf`: SHA-256, base64url). */
export const scimTokenHash = (o) => createHash("sha256").update(scimToken(o)).digest("base64url");
const SQL_EMAIL = (m) => `'m' || ${m} || '@org' || ((${m} - 1) / 10 + 1) || '.example'`;
const SQL_IP = (i) => `'10.' || (${i} / 65536 % 256) || '.' || (${i} / 256 % 256) || '.' || (${i} % 256)`;

/** Times `work`, returns seconds. */
async function timed(work) {
  const t0 = performance.now();
  await work();
  return (performance.now() - t0) / 1000;
}

/** `insert into <table> (<columns>) select <select> from generate_series($1 + 1, $2) as <n>`. */
const series = (table, columns, select, n = "m") =>
  `insert into portcullis_${table} (${columns}) select ${select} from generate_series($1::bigint + 1, $2::bigint) as ${n}`;

/**
 * Members (from, to] (users, sessions, allowlist rows, memberships, SCIM users and group members)
 * and their organizations (with SSO connections, domains and SCIM groups); `from` and `to` are
 * multiples of 10. Resolves to the seconds each table took.
 */
export async function seedMembers(pool, { from, to, passwordHash, now }) {
  const times = {};
  const run = async (name, text, values = [from, to, now]) => {
    times[name] = (times[name] ?? 0) + (await timed(() => pool.query(text, values)));
  };
  const o0 = from / MEMBERS_PER_ORGANIZATION;
  const o1 = to / MEMBERS_PER_ORGANIZATION;
  await run(
    "users",
    series(
      "users",
      `id, email, email_verified, name, password_hash, identity_providers, two_factor_methods,
       recovery_code_hashes, created_at, last_sign_in_at`,
      `'u' || m, ${SQL_EMAIL("m")}, true, 'Member ' || m, $4, '[]', '[]', '[]', $3::bigint - m, $3::bigint - m % 86400000`,
    ),
    [from, to, now, passwordHash],
  );
  await run(
    "sessions",
    series(
      "sessions",
      `id, user_id, browser, os, ip, created_at, last_active_at, refresh_token_hash,
       previous_refresh_token_hashes, access_token_jti, access_token_expires_at, expires_at, remember_me,
       active_organization_id`,
      `'s' || m, 'u' || m, 'Chrome 131', 'Linux', ${SQL_IP("m")}, $3::bigint - m % 86400000, $3::bigint - m % 3600000,
       md5('r' || m), '[]', 'j' || m, $3::bigint + ${2 * HOUR}, $3::bigint + ${30 * 24 * HOUR}, 1, 'o' || ((m - 1) / 10 + 1)`,
    ),
  );
  await run(
    "allowlist",
    series(
      "access_tokens",
      "jti, user_id, session_id, expires_at",
      `'j' || m, 'u' || m, 's' || m, $3::bigint + ${2 * HOUR}`,
    ),
  );
  await run(
    "memberships",
    series(
      "memberships",
      "organization_id, user_id, role, joined_at",
      `'o' || ((m - 1) / 10 + 1), 'u' || m, case m % 10 when 1 then 'owner' when 2 then 'billing' else 'member' end, $3::bigint - m`,
    ),
  );
  await seedOrganizations(run, [o0, o1, now]);
  await run(
    "scim_users",
    series(
      "scim_users",
      `id, connection_id, user_id, user_name, user_name_key, external_id, external_id_key, active,
       attributes, version, created_at, updated_at`,
      `'su' || m, 'sc' || ((m - 1) / 10 + 1), 'u' || m, ${SQL_EMAIL("m")}, ${SQL_EMAIL("m")}, 'ext-' || m, 'ext-' || m, true,
       '{"name":{"givenName":"Member","familyName":"' || m || '"},"emails":[{"value":"' || ${SQL_EMAIL("m")} || '","primary":true}]}',
       1, $3::bigint - m, $3::bigint - m`,
    ),
  );
  await run(
    "scim_group_members",
    series(
      "scim_group_members",
      "connection_id, group_id, user_scim_id",
      `'sc' || ((m - 1) / 10 + 1), 'sg' || ((m - 1) / 10 + 1), 'su' || m`,
    ),
    [from, to],
  );
  return times;
}

/** Organizations (o0, o1]: the organization, its SSO connection and domain, its SCIM group. */
async function seedOrganizations(run, values) {
  await run(
    "organizations",
    series(
      "organizations",
      "id, name, search_name, slug, created_at",
      `'o' || o, 'Org ' || o, 'org ' || o, 'org-' || o, $3::bigint - o`,
      "o",
    ),
    values,
  );
  await run(
    "organization_roles",
    series(
      "organization_roles",
      "organization_id, name, permissions, created_at",
      `'o' || o, 'billing', '["project:read"]', $3::bigint - o`,
      "o",
    ),
    values,
  );
  const saml = `'{"entityId":"urn:idp:org' || o || '","ssoUrl":"https://idp.example.test/sso/' || o || '","certificates":["unused"]}'`;
  await run(
    "sso_connections",
    series(
      "sso_connections",
      `id, organization_id, type, saml, oidc, default_role, domains, sso_required, idp_initiated,
       scim_token_hash, created_at, updated_at`,
      `'sc' || o, 'o' || o, 'saml', ${saml}, null, 'member', '["org' || o || '.example"]', false, false,
       ${SQL_SCIM_HASH("o")}, $3::bigint - o, $3::bigint - o`,
      "o",
    ),
    values,
  );
  await run(
    "sso_domains",
    series(
      "sso_domains",
      "organization_id, domain, verification_token, verified_at, verified_domain, created_at",
      `'o' || o, 'org' || o || '.example', md5('v' || o), $3::bigint - o, 'org' || o || '.example', $3::bigint - o`,
      "o",
    ),
    values,
  );
  await run(
    "sso_domains",
    series("sso_connection_domains", "domain, connection_id", `'org' || o || '.example', 'sc' || o`, "o"),
    values.slice(0, 2),
  );
  await run(
    "scim_groups",
    series(
      "scim_groups",
      `id, connection_id, display_name, display_name_key, external_id, external_id_key, role, version,
       created_at, updated_at`,
      `'sg' || o, 'sc' || o, 'Everyone', 'everyone', 'gext-' || o, 'gext-' || o, null, 1, $3::bigint - o, $3::bigint - o`,
      "o",
    ),
    values,
  );
}

/** API keys (from, to] of `members` members. Resolves to the seconds it took. */
export function seedApiKeys(pool, { from, to, members, now }) {
  return timed(() =>
    pool.query(
      series(
        "api_keys",
        `id, lookup_id, key_hash, name, start, user_id, organization_id, permissions, created_at,
         expires_at, last_used_at`,
        `'k' || k, substr(md5('l' || k), 1, 12), md5('h' || k), 'Key ' || k, 'pc_' || substr(md5('l' || k), 1, 6),
         'u' || ((k - 1) % $4 + 1), case when k % 2 = 0 then 'o' || (((k - 1) % $4) / 10 + 1) end,
         case when k % 2 = 0 then '["project:read"]' end, $3::bigint - k,
         case when k % 5 = 0 then $3::bigint + 7776000000 end, case when k % 3 = 0 then $3::bigint - k % 86400000 end`,
        "k",
      ),
      [from, to, now, members],
    ),
  );
}

/**
 * Audit entry `s`'s organization number (`org`, null: none) over `$4` organizations, and the seq of
 * the previous entry of that organization (`prev`, 0 when none): every tenth entry organization 1,
 * s % 10 in 1..4 none, 5..9 organizations 2..$4 in turn (`j` numbers those entries 0, 1, 2, …).
 */
const SQL_AUDIT_CHAIN = `
  cross join lateral (select (s / 10) * 5 + s % 10 - 5 as j, $4::bigint - 1 as others) q
  cross join lateral (select
    case when s % 10 = 0 then 1 when s % 10 < 5 then null else 2 + q.j % q.others end as org,
    case when s % 10 = 0 then s - 10 when q.j < q.others then 0
      else (q.j - q.others) / 5 * 10 + 5 + (q.j - q.others) % 5 end as prev) e`;
const ORG_TYPES = "(array['member.added','member.role_changed','organization.updated','member.joined'])";
const OTHER_TYPES = "(array['login.succeeded','login.failed','password.changed','session.revoked'])";

/**
 * Audit entries after the deployment head's seq, `count` of them, over `organizations`
 * organizations (each entry's actor one of `members` members), then the heads moved to the last
 * entry of each chain. A chain's first entry in this range links to its head ('' when none).
 * Resolves to `{ entries, heads }` seconds and the last seq.
 */
export async function seedAudit(pool, { count, organizations, members, now }) {
  const { rows } = await pool.query("select seq, hash from portcullis_audit_heads where chain = ''");
  const from = Number(rows[0]?.seq ?? 0);
  const headHash = rows[0]?.hash ?? "";
  const to = from + count;
  const entries = await timed(() =>
    pool.query(
      `insert into portcullis_audit_log (seq, id, at, type, actor_type, actor_id, user_id, organization_id,
         session_id, ip, user_agent, reason, prev_hash, org_prev_hash, hash)
       select s, md5('i' || s), $3::bigint - 15552000000 + s * 1000,
         case when e.org is null then ${OTHER_TYPES}[1 + s % 4] else ${ORG_TYPES}[1 + s % 4] end,
         'user', 'u' || (1 + s * 7 % $5), 'u' || (1 + s * 13 % $5), 'o' || e.org, null, ${SQL_IP("s")},
         'Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0', null,
         case when s = $1::bigint + 1 then $6 else md5('h' || (s - 1)) end,
         case when e.org is null then null when e.prev > $1::bigint then md5('h' || e.prev) else coalesce(h.hash, '') end,
         md5('h' || s)
       from generate_series($1::bigint + 1, $2::bigint) as s ${SQL_AUDIT_CHAIN}
       left join portcullis_audit_heads h on e.org is not null and e.prev <= $1::bigint and h.chain = 'o' || e.org`,
      [from, to, now, organizations, members, headHash],
    ),
  );
  const heads = await timed(async () => {
    await pool.query(
      `insert into portcullis_audit_heads (chain, seq, hash)
       select organization_id, max(seq), md5('h' || max(seq)) from portcullis_audit_log
       where seq > $1 and organization_id is not null group by organization_id
       on conflict (chain) do update set seq = excluded.seq, hash = excluded.hash`,
      [from],
    );
    await pool.query(
      `insert into portcullis_audit_heads (chain, seq, hash) values ('', $1::bigint, md5('h' || $1::bigint))
       on conflict (chain) do update set seq = excluded.seq, hash = excluded.hash`,
      [to],
    );
  });
  return { entries, heads, from, to };
}
