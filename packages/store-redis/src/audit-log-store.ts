import {
  type AuditDraft,
  type AuditEntry,
  type AuditLinks,
  type AuditLogStore,
  type AuditQuery,
  auditEntryOf,
} from "@portcullis/core";
import type { Cluster, Redis } from "ioredis";
import { PAST_DEADLINE, withCommands } from "./scripts.js";

/** How many times `append` reads the heads, seals and tries to write before it gives up. */
const MAX_ATTEMPTS = 20;
/** The longest pause between two attempts (each a random part of min(this, 2^attempt) ms). */
const BACKOFF_MAX_MS = 50;
/** How many entries one `list` script reads at most (it returns, and the next page is another call). */
const SCAN_PAGE = 500;
/** How many entries one `sweepAudit` script removes at most. */
const SWEEP_BATCH = 500;
/** The most entries `list` returns (the port's `limit` range). */
const LIST_LIMIT = 1_000;

/**
 * KEYS[1] the heads (a hash: `seq`, `hash`, and `o:<organizationId>` → that organization's head
 * hash) · KEYS[2] the deployment's entries (a sorted set, score and member the seq) · KEYS[3] the
 * same scored by `at` · ARGV[1] deadline · ARGV[2] the seq read · ARGV[3] the hash read · ARGV[4]
 * the prefix of entry keys · ARGV[5] of organizations' sorted sets · ARGV[6] n, then n pairs
 * (organization, the head hash read) · then per entry: seq, at, organization ('' none, else '+'
 * and its id), hash, JSON → 1 written; 0 (nothing written) when a head moved since it was read;
 * -1 (nothing written) when it runs past the deadline. Every check comes before the first write.
 */
const APPEND_AUDIT = `${PAST_DEADLINE}
if past_deadline(ARGV[1]) then return -1 end
local heads = redis.call('HMGET', KEYS[1], 'seq', 'hash')
if (heads[1] or '0') ~= ARGV[2] or (heads[2] or '') ~= ARGV[3] then return 0 end
local n = tonumber(ARGV[6])
for i = 0, n - 1 do
  if (redis.call('HGET', KEYS[1], 'o:' .. ARGV[7 + 2 * i]) or '') ~= ARGV[8 + 2 * i] then return 0 end
end
local last_seq, last_hash
for i = 7 + 2 * n, #ARGV, 5 do
  local seq, org, hash = ARGV[i], ARGV[i + 2], ARGV[i + 3]
  redis.call('SET', ARGV[4] .. seq, ARGV[i + 4])
  redis.call('ZADD', KEYS[2], seq, seq)
  redis.call('ZADD', KEYS[3], ARGV[i + 1], seq)
  if org ~= '' then
    org = string.sub(org, 2)
    redis.call('ZADD', ARGV[5] .. org, seq, seq)
    redis.call('HSET', KEYS[1], 'o:' .. org, hash)
  end
  last_seq, last_hash = seq, hash
end
redis.call('HSET', KEYS[1], 'seq', last_seq, 'hash', last_hash)
return 1`;

/**
 * KEYS[1] a sorted set of seqs (the deployment's or an organization's) · ARGV[1] the prefix of
 * entry keys · ARGV[2] 'asc' or 'desc' · ARGV[3] the seq to start after ('' from the end) ·
 * ARGV[4] how many seqs to read · ARGV[5] how many matches are wanted · ARGV[6] the filter (JSON:
 * type, actorId, from, to, each absent when unset) → { the matching entries' JSON, the last seq
 * read ('' none), 1 when the set has nothing past it }.
 */
const LIST_AUDIT = `
local filter = cjson.decode(ARGV[6])
local filtered = next(filter) ~= nil
local seqs
if ARGV[2] == 'asc' then
  local min = ARGV[3] == '' and '-inf' or '(' .. ARGV[3]
  seqs = redis.call('ZRANGEBYSCORE', KEYS[1], min, '+inf', 'LIMIT', 0, ARGV[4])
else
  local max = ARGV[3] == '' and '+inf' or '(' .. ARGV[3]
  seqs = redis.call('ZREVRANGEBYSCORE', KEYS[1], max, '-inf', 'LIMIT', 0, ARGV[4])
end
local out, last, wanted = {}, '', tonumber(ARGV[5])
for _, seq in ipairs(seqs) do
  last = seq
  local json = redis.call('GET', ARGV[1] .. seq)
  if json then
    local keep = true
    if filtered then
      local e = cjson.decode(json)
      keep = (filter.type == nil or e.type == filter.type)
        and (filter.actorId == nil or e.actorId == filter.actorId)
        and (filter.from == nil or e.at >= filter.from)
        and (filter.to == nil or e.at < filter.to)
    end
    if keep then
      out[#out + 1] = json
      if #out >= wanted then return {out, last, 0} end
    end
  end
end
return {out, last, #seqs < tonumber(ARGV[4]) and 1 or 0}`;

/**
 * KEYS[1] the entries scored by `at` · KEYS[2] the deployment's entries · ARGV[1] olderThan ·
 * ARGV[2] the most to remove · ARGV[3] the prefix of entry keys · ARGV[4] of organizations'
 * sorted sets → how many entries went (with `at` < olderThan, oldest first). The heads stay.
 */
const SWEEP_AUDIT = `
local seqs = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1], 'LIMIT', 0, ARGV[2])
for _, seq in ipairs(seqs) do
  local json = redis.call('GET', ARGV[3] .. seq)
  if json then
    local org = cjson.decode(json).organizationId
    if type(org) == 'string' then redis.call('ZREM', ARGV[4] .. org, seq) end
    redis.call('DEL', ARGV[3] .. seq)
  end
  redis.call('ZREM', KEYS[2], seq)
  redis.call('ZREM', KEYS[1], seq)
end
return #seqs`;

/** The core's `seal`: the keyed hash of a draft with its links. */
type Seal = (draft: AuditDraft, links: AuditLinks) => string;

interface AuditCommands {
  portcullisAppendAudit(...args: (string | number)[]): Promise<number>;
  portcullisListAudit(
    set: string,
    entryPrefix: string,
    order: string,
    after: string,
    page: number,
    wanted: number,
    filter: string,
  ): Promise<[string[], string, number]>;
  portcullisSweepAudit(
    atSet: string,
    seqSet: string,
    olderThan: string,
    batch: number,
    entryPrefix: string,
    organizationPrefix: string,
  ): Promise<number>;
}

const COMMANDS = {
  portcullisAppendAudit: { numberOfKeys: 3, lua: APPEND_AUDIT },
  portcullisListAudit: { numberOfKeys: 1, lua: LIST_AUDIT },
  portcullisSweepAudit: { numberOfKeys: 2, lua: SWEEP_AUDIT },
};

/** The heads an append starts from, as read, and the entries sealed on them. */
interface Sealed {
  seq: string;
  hash: string;
  /** Per organization of the drafts: its id, then its head hash as read ('' none). */
  organizationHeads: string[];
  entries: AuditEntry[];
}

/** Seals `drafts` in order on the heads read (`seq`, `hash`, then each organization's head hash). */
function sealDrafts(
  drafts: AuditDraft[],
  seal: Seal,
  organizations: string[],
  read: (string | null)[],
): Sealed {
  const [seqRead, hashRead, ...organizationHashes] = read;
  const heads = new Map(organizations.map((id, i) => [id, organizationHashes[i] ?? ""]));
  const organizationHeads = organizations.flatMap((id) => [id, heads.get(id) ?? ""]);
  let seq = Number(seqRead ?? 0);
  let prevHash = hashRead ?? "";
  const entries = drafts.map((draft) => {
    seq += 1;
    const organizationId = draft.organizationId;
    const links = {
      seq,
      prevHash,
      orgPrevHash: organizationId === null ? null : (heads.get(organizationId) ?? ""),
    };
    const hash = seal(draft, links);
    prevHash = hash;
    if (organizationId !== null) heads.set(organizationId, hash);
    return auditEntryOf(draft, links, hash);
  });
  return { seq: seqRead ?? "0", hash: hashRead ?? "", organizationHeads, entries };
}

/** The filter `LIST_AUDIT` applies, as JSON (unset ones left out). */
const filterOf = (query: AuditQuery) =>
  JSON.stringify({ type: query.type, actorId: query.actorId, from: query.from, to: query.to });

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The client, its bounds and the keys of one audit log (every one under the `{audit}` hash tag). */
interface AuditSpace {
  client: Redis | Cluster;
  redis: AuditCommands;
  bounded: <T>(operation: Promise<T>) => Promise<T>;
  deadline: () => Promise<number>;
  heads: string;
  seqSet: string;
  atSet: string;
  entryPrefix: string;
  organizationPrefix: string;
}

/** One attempt: the entries written, or undefined when another append moved a head first. */
async function tryAppend(
  space: AuditSpace,
  drafts: AuditDraft[],
  seal: Seal,
): Promise<AuditEntry[] | undefined> {
  const organizations = [...new Set(drafts.flatMap((draft) => draft.organizationId ?? []))];
  const read = await space.bounded(
    space.client.hmget(space.heads, "seq", "hash", ...organizations.map((id) => `o:${id}`)),
  );
  const sealed = sealDrafts(drafts, seal, organizations, read);
  const by = await space.deadline();
  const written = await space.bounded(
    space.redis.portcullisAppendAudit(
      space.heads,
      space.seqSet,
      space.atSet,
      by,
      sealed.seq,
      sealed.hash,
      space.entryPrefix,
      space.organizationPrefix,
      organizations.length,
      ...sealed.organizationHeads,
      ...sealed.entries.flatMap((entry) => [
        String(entry.seq),
        String(entry.at),
        entry.organizationId === null ? "" : `+${entry.organizationId}`,
        entry.hash,
        JSON.stringify(entry),
      ]),
    ),
  );
  if (written === -1) throw new Error("Redis ran the audit append past its deadline: nothing was written");
  return written === 1 ? sealed.entries : undefined;
}

/** Tries `tryAppend` up to MAX_ATTEMPTS times, a jittered pause between two, then rejects. */
async function appendWithRetries(space: AuditSpace, drafts: AuditDraft[], seal: Seal): Promise<AuditEntry[]> {
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const entries = await tryAppend(space, drafts, seal);
    if (entries) return entries;
    if (attempt < MAX_ATTEMPTS) await pause(Math.random() * Math.min(BACKOFF_MAX_MS, 2 ** attempt));
  }
  throw new Error(`The audit log's heads moved under each of ${MAX_ATTEMPTS} appends: nothing was written`);
}

/** `list`: pages of SCAN_PAGE seqs, one script each, until `limit` entries match or the set ends. */
async function listEntries(space: AuditSpace, query: AuditQuery): Promise<AuditEntry[]> {
  const limit = Math.min(LIST_LIMIT, Math.floor(query.limit));
  if (!(limit >= 1)) return [];
  const set =
    query.organizationId === undefined ? space.seqSet : `${space.organizationPrefix}${query.organizationId}`;
  const filter = filterOf(query);
  const found: string[] = [];
  let after = query.afterSeq === undefined ? "" : String(query.afterSeq);
  for (;;) {
    const [matches, last, exhausted] = await space.bounded(
      space.redis.portcullisListAudit(
        set,
        space.entryPrefix,
        query.order,
        after,
        SCAN_PAGE,
        limit - found.length,
        filter,
      ),
    );
    found.push(...matches);
    if (found.length >= limit || exhausted === 1 || last === "") break;
    after = last;
  }
  return found.map((json) => JSON.parse(json) as AuditEntry);
}

/** `sweepAudit`: SWEEP_BATCH entries a script until a script removes fewer. */
async function sweepEntries(space: AuditSpace, olderThan: number): Promise<number> {
  let removed = 0;
  for (;;) {
    const count = await space.bounded(
      space.redis.portcullisSweepAudit(
        space.atSet,
        space.seqSet,
        String(olderThan),
        SWEEP_BATCH,
        space.entryPrefix,
        space.organizationPrefix,
      ),
    );
    removed += count;
    if (count < SWEEP_BATCH) return removed;
  }
}

/**
 * The audit log on Redis, every key under one hash tag (`{audit}`, one cluster slot, so one
 * script moves both chains): a JSON string per entry by `seq`, a sorted set of seqs for the
 * deployment and one per organization (score the seq: a cursor is a range read), one scored by
 * `at` (for `sweepAudit`), and a hash of the chains' heads. Redis cannot compute the core's keyed
 * hash, so `append` is optimistic: it reads the heads (one HMGET), seals each draft, then one Lua
 * script writes the entries and moves the heads only if the heads are still the ones read; when
 * another writer got in between it reads and seals again (up to 20 attempts, a jittered pause
 * between them), then rejects. The appends of one store are run one after another, so only
 * other processes' compete. The script carries a deadline (Redis's clock): run after the caller
 * gave up, it writes nothing. `list` filters (type, actorId, from, to) while it pages the sorted
 * set, 500 entries a script, until `limit` match: a filter that matches few entries reads up to
 * every entry of the range (each page a short script, so Redis is never blocked long).
 * `sweepAudit` removes entries 500 a script.
 */
export function redisAuditLogStore(
  client: Redis | Cluster,
  bounded: <T>(operation: Promise<T>) => Promise<T>,
  prefix: string,
  deadline: () => Promise<number>,
): AuditLogStore {
  withCommands(client, COMMANDS);
  const space: AuditSpace = {
    client,
    redis: client as unknown as AuditCommands,
    bounded,
    deadline,
    heads: `${prefix}{audit}:heads`,
    seqSet: `${prefix}{audit}:seq`,
    atSet: `${prefix}{audit}:at`,
    entryPrefix: `${prefix}{audit}:e:`,
    organizationPrefix: `${prefix}{audit}:o:`,
  };
  let queue: Promise<unknown> = Promise.resolve();
  return {
    append(drafts, seal) {
      if (drafts.length === 0) return Promise.resolve([]);
      // One append of this store at a time: only other processes' appends compete for the heads.
      const run = queue.then(() => appendWithRetries(space, drafts, seal));
      queue = run.catch(() => {});
      return run;
    },
    list: (query) => listEntries(space, query),
    sweepAudit: (olderThan) => sweepEntries(space, olderThan),
  };
}
