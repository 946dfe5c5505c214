import type { HotCalls, PlannedStores, Series } from "./query-plans-support.js";

/**
 * Test support for query-plans.test.ts (not part of the package's exports): the audit log filled,
 * its calls, and the check that its filtered listings read their index, in that file's terms.
 */

/**
 * `rows` entries, one per millisecond up to `now`, and the heads of `rows` organizations' chains
 * and of the deployment's. The first quarter's entries are of one organization, type and actor
 * that none of the later ones has (`o-early`, `type-early`, `u-early`): a value frequent enough
 * for the planner, with every entry old. The others: 20 types, 500 actors, every second entry of
 * one of 100 organizations.
 */
export function auditFillStatements(series: Series, rows: number, now: number): string[] {
  const early = (value: string, otherwise: string) =>
    `case when n <= ${rows / 4} then ${value} else ${otherwise} end`;
  return [
    series(
      rows,
      `n, 'e' || n, ${now} - ${rows} + n, ${early("'type-early'", "'type' || (n % 20)")}, 'user', ${early("'u-early'", "'u' || (n % 500)")}, 'u' || n, ${early("'o-early'", "case when n % 2 = 0 then 'o' || (n % 100) end")}, '', 'h' || n`,
      "portcullis_audit_log",
      "seq, id, at, type, actor_type, actor_id, user_id, organization_id, prev_hash, hash",
    ),
    series(rows, `'o' || n, n, 'h' || n`, "portcullis_audit_heads", "chain, seq, hash"),
    `insert into portcullis_audit_heads (chain, seq, hash) values ('', ${rows}, 'h${rows}')`,
  ];
}

/** The audit log's calls: an append to both chains, the listing with each filter, the retention sweep. */
export function auditLogCalls(stores: PlannedStores, now: number, rows: number): HotCalls {
  const auditLog = stores.auditLog;
  const draft = {
    id: "e-new",
    at: now,
    type: "type7",
    actorType: "user" as const,
    actorId: "u7",
    userId: "u7",
    organizationId: "o8",
    sessionId: null,
    ip: null,
    userAgent: null,
    reason: null,
  };
  const list = { order: "desc", limit: 50 } as const;
  return [
    ["auditLog.append", () => auditLog.append([draft], (_, links) => `hash-${links.seq}`)],
    ["auditLog.list", () => auditLog.list({ ...list, afterSeq: 5_000 })],
    ["auditLog.list (organization)", () => auditLog.list({ ...list, organizationId: "o6", afterSeq: 9_000 })],
    ["auditLog.list (type)", () => auditLog.list({ ...list, order: "asc", type: "type3", afterSeq: 100 })],
    ["auditLog.list (actor)", () => auditLog.list({ ...list, actorId: "u9" })],
    [
      "auditLog.list (organization, every entry old)",
      () => auditLog.list({ ...list, organizationId: "o-early" }),
    ],
    ["auditLog.list (type, every entry old)", () => auditLog.list({ ...list, type: "type-early" })],
    ["auditLog.list (actor, every entry old)", () => auditLog.list({ ...list, actorId: "u-early" })],
    ["auditLog.list (from, to)", () => auditLog.list({ ...list, from: now - 3_000, to: now - 2_000 })],
    ["auditLog.sweepAudit", () => auditLog.sweepAudit(now - rows + 10)],
  ];
}

/**
 * The audit-log listings by organization, type and actor whose plan does not read that filter's
 * index `(<column>, seq)`: walking the primary key backwards and filtering reads every newer entry
 * first, the whole table for a value whose entries are all old.
 */
export function auditListingsOffIndex(found: { call: string; plan: string[] }[]): string[] {
  const indexes = { organization: "organization_id_seq", type: "type_seq", actor: "actor_id_seq" };
  return found.flatMap(({ call, plan }) => {
    const filter = /^auditLog\.list \((organization|type|actor)\b/.exec(call)?.[1] as keyof typeof indexes;
    if (filter === undefined) return [];
    const index = `portcullis_audit_log_${indexes[filter]}_idx`;
    return plan.some((line) => line.includes(index)) ? [] : [`${call}:\n  ${plan.join("\n  ")}`];
  });
}
