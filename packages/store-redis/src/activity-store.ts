import type { ActivityRecord, ActivityStore } from "@portcullis/core";
import type { Cluster, Redis } from "ioredis";

/**
 * KEYS[1] the user's activity (a sorted set: score `at`, member `<id>|<json>`) · ARGV[1] at ·
 * ARGV[2] member · ARGV[3] retention ms · ARGV[4] cap → the entries the set holds after the write.
 * Drops the entries more than the retention older than this one, then the oldest beyond the cap,
 * and lets the set expire (on Redis's clock) a retention after its latest write.
 */
const RECORD_ACTIVITY = `
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. (tonumber(ARGV[1]) - tonumber(ARGV[3])))
local count = redis.call('ZCARD', KEYS[1])
local cap = tonumber(ARGV[4])
if count > cap then
  redis.call('ZREMRANGEBYRANK', KEYS[1], 0, count - cap - 1)
  count = cap
end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return count`;

/**
 * KEYS[1] the user's activity · ARGV[1] before at ('' for none) · ARGV[2] before id · ARGV[3]
 * limit · ARGV[4] since ('-inf' for none) → up to limit members, newest first, strictly older than
 * (before at, before id). Members of one score sort by id (ids have one length), so the ones of
 * the cursor's own score at or above its id are skipped.
 */
const LIST_ACTIVITY = `
local limit = tonumber(ARGV[3])
local max = '+inf'
local skip = 0
if ARGV[1] ~= '' then
  max = ARGV[1]
  skip = redis.call('ZCOUNT', KEYS[1], ARGV[1], ARGV[1])
end
local members = redis.call('ZREVRANGEBYSCORE', KEYS[1], max, ARGV[4], 'WITHSCORES', 'LIMIT', 0, limit + skip)
local out = {}
for i = 1, #members, 2 do
  local member = members[i]
  local id = string.sub(member, 1, string.find(member, '|', 1, true) - 1)
  if ARGV[1] == '' or tonumber(members[i + 1]) < tonumber(ARGV[1]) or id < ARGV[2] then
    out[#out + 1] = member
    if #out >= limit then break end
  end
end
return out`;

/** KEYS[1] the user's activity → how many entries it held; it is gone. */
const DELETE_ACTIVITY = `
local count = redis.call('ZCARD', KEYS[1])
redis.call('DEL', KEYS[1])
return count`;

interface ActivityCommands {
  portcullisRecordActivity(
    key: string,
    at: number,
    member: string,
    retentionMs: number,
    cap: number,
  ): Promise<number>;
  portcullisListActivity(
    key: string,
    beforeAt: string,
    beforeId: string,
    limit: number,
    since: string,
  ): Promise<string[]>;
  portcullisDeleteActivity(key: string): Promise<number>;
}

const COMMANDS: Record<keyof ActivityCommands, string> = {
  portcullisRecordActivity: RECORD_ACTIVITY,
  portcullisListActivity: LIST_ACTIVITY,
  portcullisDeleteActivity: DELETE_ACTIVITY,
};

/** Glob characters of a SCAN pattern, escaped so a key prefix matches itself only. */
export const globEscape = (text: string) => text.replace(/[*?[\]\\]/g, "\\$&");

/** The member an entry is stored as: its id first, so members of one `at` sort by id. */
const memberOf = (entry: ActivityRecord) => {
  const { id, ...rest } = entry;
  return `${id}|${JSON.stringify(rest)}`;
};

const parseMember = (member: string): ActivityRecord => {
  const bar = member.indexOf("|");
  return { id: member.slice(0, bar), ...(JSON.parse(member.slice(bar + 1)) as Omit<ActivityRecord, "id">) };
};

/**
 * Each user's activity in one sorted set (score `at`) under the user's slot tag: every write is
 * one Lua script that drops the entries more than the retention older than the new one and keeps
 * the `cap` newest, and the set expires a retention after its latest write (on Redis's clock), so
 * an idle user's activity goes by itself. `sweepActivity` walks the sets with SCAN (every primary of a cluster).
 */
export function redisActivityStore(
  client: Redis | Cluster,
  bounded: <T>(operation: Promise<T>) => Promise<T>,
  keys: { activityKey(userId: string): string; activityPattern: string },
  cap: number,
): ActivityStore {
  for (const [name, lua] of Object.entries(COMMANDS)) {
    if (!(name in client)) client.defineCommand(name, { numberOfKeys: 1, lua });
  }
  const redis = client as unknown as ActivityCommands & (Redis | Cluster);
  const pattern = keys.activityPattern;

  async function sweepNode(node: Redis, olderThan: number): Promise<number> {
    let removed = 0;
    let cursor = "0";
    do {
      const [next, found] = await bounded(node.scan(cursor, "MATCH", pattern, "COUNT", 200));
      cursor = next;
      for (const key of found) removed += await bounded(node.zremrangebyscore(key, "-inf", `(${olderThan}`));
    } while (cursor !== "0");
    return removed;
  }

  return {
    async record(entry, retentionMs) {
      await bounded(
        redis.portcullisRecordActivity(
          keys.activityKey(entry.userId),
          entry.at,
          memberOf(entry),
          Math.max(1, Math.ceil(retentionMs)),
          cap,
        ),
      );
    },
    async list(userId, { before, limit, since }) {
      if (limit < 1) return [];
      const members = await bounded(
        redis.portcullisListActivity(
          keys.activityKey(userId),
          before ? String(before.at) : "",
          before?.id ?? "",
          Math.floor(limit),
          since === undefined ? "-inf" : String(since),
        ),
      );
      return members.map(parseMember);
    },
    async deleteUserActivity(userId) {
      return bounded(redis.portcullisDeleteActivity(keys.activityKey(userId)));
    },
    async sweepActivity(olderThan) {
      const nodes = client.isCluster ? (client as Cluster).nodes("master") : [client as Redis];
      const counts = await Promise.all(nodes.map((node) => sweepNode(node, olderThan)));
      return counts.reduce((sum, count) => sum + count, 0);
    },
  };
}
