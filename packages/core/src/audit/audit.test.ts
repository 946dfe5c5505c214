import { createMemoryAuditLogStore } from "@portcullis/store-memory";
import { describe, expect, it } from "vitest";
import type { SecurityEvent } from "../events.js";
import type { AuditDraft, AuditEntry, AuditLogStore } from "../ports/audit-log-store.js";
import { createBackgroundTasks } from "../support/background.js";
import { createPendingWrites } from "../support/pending-writes.js";
import { createLineLogger, createTestAuth, PASSWORD, signIn, TEST_SECRET } from "../test-support.js";
import { auditDraft } from "./draft.js";
import { listAuditPage, listOrganizationAuditPage } from "./read.js";
import { createAuditRecorder } from "./recorder.js";
import { createAuditSeal } from "./seal.js";
import { verifyAuditChain } from "./verify.js";

const event = (type: SecurityEvent["type"], extra: Partial<SecurityEvent> = {}): SecurityEvent => ({
  type,
  time: Date.UTC(2026, 0, 1),
  userId: "u1",
  sessionId: "s1",
  ip: "203.0.113.7",
  userAgent: "test",
  reason: null,
  ...extra,
});

const draft = (id: string, organizationId: string | null = null): AuditDraft =>
  auditDraft(event("login.succeeded", organizationId ? { organizationId, actor: "u1" } : {}), id);

/** A store whose entries a test can change or remove behind the core's back (as a database admin could). */
function tamperable(store: AuditLogStore) {
  const changed = new Map<number, Partial<AuditEntry>>();
  const removed = new Set<number>();
  const wrapped: AuditLogStore = {
    append: (drafts, seal) => store.append(drafts, seal),
    sweepAudit: (olderThan) => store.sweepAudit(olderThan),
    async list(query) {
      const found = await store.list(query);
      return found
        .filter((entry) => !removed.has(entry.seq))
        .map((entry) => ({ ...entry, ...changed.get(entry.seq) }));
    },
  };
  return { store: wrapped, changed, removed };
}

describe("audit drafts", () => {
  it("auditDraft - actors: the user, the back office, the host, an impersonator, an API key, the system", () => {
    const actorOf = (e: SecurityEvent) => {
      const { actorType, actorId } = auditDraft(e, "x");
      return `${actorType}:${actorId}`;
    };
    expect(actorOf(event("password.changed"))).toBe("user:u1");
    expect(actorOf(event("login.failed", { userId: null, reason: "unknown_email" }))).toBe("user:null");
    expect(actorOf(event("login.throttled"))).toBe("system:null");
    expect(actorOf(event("ip.limited", { userId: null }))).toBe("system:null");
    expect(actorOf(event("user.locked", { actor: "admin-1" }))).toBe("admin:admin-1");
    expect(actorOf(event("user.locked", { actor: "host" }))).toBe("host:null");
    expect(actorOf(event("user.locked", { actor: "script", actorType: "host", actorId: "script" }))).toBe(
      "host:script",
    );
    expect(actorOf(event("session.revoked", { actor: "admin-1", reason: "impersonation_ended" }))).toBe(
      "impersonator:admin-1",
    );
    expect(actorOf(event("member.role_changed", { actor: "owner-1", organizationId: "o1" }))).toBe(
      "user:owner-1",
    );
    expect(
      actorOf(event("member.removed", { actorType: "api_key", actorId: "k1", organizationId: "o1" })),
    ).toBe("api_key:k1");
    const full = auditDraft(event("member.joined", { organizationId: "o1", actor: "u1" }), "id1");
    expect(full).toEqual({
      id: "id1",
      at: Date.UTC(2026, 0, 1),
      type: "member.joined",
      actorType: "user",
      actorId: "u1",
      userId: "u1",
      organizationId: "o1",
      sessionId: "s1",
      ip: "203.0.113.7",
      userAgent: "test",
      reason: null,
    });
  });

  it("createAuth - host calls, the back office and an impersonation name their actor in the entries", async () => {
    const { auth, stores } = createTestAuth({
      admin: { authorize: (_p, user) => user.email.startsWith("admin") },
      organizations: { permissions: ["project:read"] },
      email: { loginAlerts: false },
    });
    const target = await auth.host.createUser({}, { email: "t@example.test", password: PASSWORD });
    await auth.host.lockUser({ actor: "script:fraud" }, { userId: target.id });
    await auth.host.unlockUser({}, target.id);
    await auth.host.createUser({}, { email: "admin@example.test", password: PASSWORD });
    const login = await signIn(auth, { email: "admin@example.test", password: PASSWORD });
    const principal = await auth.authenticate({ token: login.accessToken });
    const stepped = await auth.stepUp({ principal }, { password: PASSWORD });
    if (stepped.twoFactorRequired) throw new Error("2FA");
    const admin = { principal, stepUpToken: stepped.stepUpToken };
    const taken = await auth.admin.impersonate(admin, target.id);
    const as = await auth.authenticate({ token: taken.accessToken });
    await auth.organizations.create({ principal: as }, { name: "Made while impersonating" });
    await auth.logout({}, { accessToken: taken.accessToken });
    const entries = await stores.auditLog.list({ order: "asc", limit: 100 });
    const actors = entries.map((entry) => `${entry.type} ${entry.actorType}:${entry.actorId}`);
    expect(actors).toContain("user.created host:null");
    expect(actors).toContain("user.locked host:script:fraud");
    expect(actors).toContain("user.unlocked host:null");
    expect(actors).toContain(`login.succeeded user:${login.user.id}`);
    expect(actors).toContain(`impersonation.started admin:${login.user.id}`);
    expect(actors).toContain(`organization.created impersonator:${login.user.id}`);
    expect(actors).toContain(`session.revoked impersonator:${login.user.id}`);
  });
});

describe("audit chain", () => {
  const seal = createAuditSeal([TEST_SECRET]);

  async function chain(count: number) {
    const memory = createMemoryAuditLogStore();
    const drafts = Array.from({ length: count }, (_, i) => draft(`e${i}`, i % 2 === 0 ? "o1" : null));
    await memory.append(drafts, seal.seal);
    return tamperable(memory);
  }

  it("verify - an untouched chain holds, the deployment's and an organization's", async () => {
    const { store } = await chain(7);
    expect(await verifyAuditChain(store, seal, undefined, 3)).toEqual({ ok: true, checked: 7 });
    expect(await verifyAuditChain(store, seal, "o1", 2)).toEqual({ ok: true, checked: 4 });
  });

  it("verify - a field changed in the store: broken, reason hash, at that entry's seq", async () => {
    const { store, changed } = await chain(6);
    changed.set(4, { actorId: "someone-else" });
    const result = await verifyAuditChain(store, seal, undefined, 2);
    expect(result).toEqual({ ok: false, checked: 4, broken: { id: "e3", seq: 4, reason: "hash" } });
    changed.clear();
    changed.set(5, { at: 0 });
    expect(await verifyAuditChain(store, seal, "o1")).toMatchObject({
      ok: false,
      broken: { seq: 5, reason: "hash" },
    });
  });

  it("verify - a middle entry deleted: broken, reason link, at the entry after it", async () => {
    const { store, removed } = await chain(6);
    removed.add(3);
    expect(await verifyAuditChain(store, seal)).toEqual({
      ok: false,
      checked: 3,
      broken: { id: "e3", seq: 4, reason: "link" },
    });
    expect(await verifyAuditChain(store, seal, "o1")).toMatchObject({
      ok: false,
      broken: { seq: 5, reason: "link" },
    });
  });

  it("verify - after a retention sweep the oldest kept entry is the anchor; a rotated secret still verifies", async () => {
    const { store, removed } = await chain(5);
    removed.add(1);
    removed.add(2);
    expect(await verifyAuditChain(store, seal)).toEqual({ ok: true, checked: 3 });
    const rotated = createAuditSeal(["a-newer-secret-kM3pQ9xV2rT7wZ4nB8cL1dF6", TEST_SECRET]);
    expect(await verifyAuditChain(store, rotated)).toEqual({ ok: true, checked: 3 });
    expect(
      await verifyAuditChain(store, createAuditSeal(["another-secret-uY5hJ2kP9qW3eR7tZ1xC4vB8"])),
    ).toMatchObject({
      ok: false,
      broken: { seq: 3, reason: "hash" },
    });
  });
});

describe("audit cursors", () => {
  const NEWER = "a-newer-secret-kM3pQ9xV2rT7wZ4nB8cL1dF6";

  it("sealCursor - opaque: another text each time, no seq in any decodable form; openCursor gives it back", () => {
    const seal = createAuditSeal([TEST_SECRET]);
    const texts = [seal.sealCursor(42), seal.sealCursor(42), seal.sealCursor(43)];
    expect(new Set(texts).size).toBe(3);
    for (const text of texts) {
      expect(text).toMatch(/^[A-Za-z0-9_-]+$/);
      const decoded = Buffer.from(text, "base64url").toString("latin1");
      expect(decoded).not.toMatch(/^a\d+$/);
      expect(decoded).not.toContain("a42");
      expect(decoded).not.toContain("a43");
    }
    expect(texts.map((text) => seal.openCursor(text))).toEqual([42, 42, 43]);
    expect(seal.openCursor(seal.sealCursor(9_007_199_254_740))).toBe(9_007_199_254_740);
    // One length for every position: the cursor does not tell how large the deployment's log is.
    expect(new Set([1, 42, 123_456, 9_007_199_254_740].map((seq) => seal.sealCursor(seq).length)).size).toBe(
      1,
    );
  });

  it("openCursor - a rotated secret still opens; another secret, a changed or cut cursor, the old plain form do not", () => {
    const old = createAuditSeal([TEST_SECRET]);
    const rotated = createAuditSeal([NEWER, TEST_SECRET]);
    const made = old.sealCursor(7);
    expect(rotated.openCursor(made)).toBe(7);
    expect(old.openCursor(rotated.sealCursor(8))).toBeUndefined();
    expect(createAuditSeal([NEWER]).openCursor(made)).toBeUndefined();
    const bytes = Buffer.from(made, "base64url");
    for (const index of [0, 12, bytes.length - 1]) {
      const changed = Buffer.from(bytes);
      changed[index] = (changed[index] ?? 0) ^ 1;
      expect(old.openCursor(changed.toString("base64url"))).toBeUndefined();
    }
    for (const text of [made.slice(0, -2), "", "a7", Buffer.from("a7").toString("base64url"), `${made}!`])
      expect(old.openCursor(text)).toBeUndefined();
  });

  it("listAuditPage - paged with cursors made before a rotation: every entry once, newest first; a bad cursor 400 at cursor", async () => {
    const memory = createMemoryAuditLogStore();
    const before = createAuditSeal([TEST_SECRET]);
    await memory.append(
      Array.from({ length: 9 }, (_, i) => draft(`e${i}`, i % 3 === 0 ? null : "o1")),
      before.seal,
    );
    const after = createAuditSeal([NEWER, TEST_SECRET]);
    const first = await listOrganizationAuditPage({ store: memory, seal: before }, { limit: 2 }, "o1");
    const ids = first.items.map((item) => item.id);
    let cursor = first.nextCursor;
    while (cursor !== null) {
      const page = await listOrganizationAuditPage(
        { store: memory, seal: after },
        { limit: 2, cursor },
        "o1",
      );
      ids.push(...page.items.map((item) => item.id));
      for (const item of page.items) expect(Object.keys(item)).not.toContain("seq");
      cursor = page.nextCursor;
    }
    expect(ids).toEqual(["e8", "e7", "e5", "e4", "e2", "e1"]);
    const deployment = await listAuditPage({ store: memory, seal: after }, { limit: 4 });
    expect(deployment.items.map((item) => item.seq)).toEqual([9, 8, 7, 6]);
    const rest = await listAuditPage({ store: memory, seal: after }, { cursor: deployment.nextCursor });
    expect(rest.items.map((item) => item.seq)).toEqual([5, 4, 3, 2, 1]);
    const refused = listAuditPage(
      { store: memory, seal: createAuditSeal([NEWER]) },
      { cursor: first.nextCursor },
    );
    await expect(refused).rejects.toMatchObject({
      code: "VALIDATION_FAILED",
      issues: [{ path: "cursor" }],
    });
  });
});

describe("audit recorder", () => {
  const recorder = (store: AuditLogStore) => {
    const { logger, lines } = createLineLogger();
    const writes = createPendingWrites();
    const audit = createAuditRecorder({
      store,
      seal: createAuditSeal([TEST_SECRET]),
      retentionDays: 365,
      clock: { now: () => Date.UTC(2026, 0, 1) },
      logger,
      background: createBackgroundTasks(logger),
      writes,
    });
    return { audit, writes, lines };
  };

  it("observe - one turn's events go in one append; the next batch waits for the one in flight", async () => {
    const memory = createMemoryAuditLogStore();
    const batches: number[] = [];
    let inFlight = 0;
    let most = 0;
    let release: () => void = () => {};
    const store: AuditLogStore = {
      ...memory,
      async append(drafts, seal) {
        batches.push(drafts.length);
        most = Math.max(most, ++inFlight);
        if (batches.length === 1) await new Promise<void>((resolve) => (release = resolve));
        try {
          return await memory.append(drafts, seal);
        } finally {
          inFlight -= 1;
        }
      },
    };
    const { audit, writes } = recorder(store);
    const first = writes.within(async () => {
      for (let i = 0; i < 3; i++) audit.observe(event("login.succeeded"));
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toEqual([3]);
    for (let i = 0; i < 4; i++) audit.observe(event("session.revoked"));
    await new Promise((resolve) => setImmediate(resolve));
    audit.observe(event("password.changed"));
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toEqual([3]); // the second batch waits, growing
    release();
    await first;
    await audit.flushed();
    expect(batches).toEqual([3, 5]);
    expect(most).toBe(1);
    expect(await memory.list({ order: "asc", limit: 100 })).toHaveLength(8);
  });

  it("within - a call settles after the entries its events started are written", async () => {
    const memory = createMemoryAuditLogStore();
    const store: AuditLogStore = {
      ...memory,
      append: async (drafts, seal) => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        return memory.append(drafts, seal);
      },
    };
    const { audit, writes } = recorder(store);
    await writes.within(async () => audit.observe(event("login.succeeded")));
    expect(await memory.list({ order: "asc", limit: 10 })).toHaveLength(1);
  });

  it("observe - a store that rejects: the request still succeeds, the failure is logged audit.write_failed", async () => {
    const { logger, lines } = createLineLogger();
    const { auth, stores } = createTestAuth({ logger, email: { loginAlerts: false } });
    stores.auditLog.append = async () => Promise.reject(new Error("disk full"));
    await auth.host.createUser({}, { email: "ada@example.test", password: PASSWORD });
    const result = await signIn(auth, { email: "ada@example.test", password: PASSWORD });
    expect(result.accessToken).toBeTruthy();
    const failed = lines
      .map((line) => JSON.parse(line))
      .filter((line) => line.event === "audit.write_failed");
    expect(failed.length).toBeGreaterThan(0);
    expect(failed[0]).toMatchObject({ level: "error", err: "Error: disk full" });
    expect(failed.flatMap((line) => line.types)).toContain("login.succeeded");
  });

  it("observe - sweeps entries past auditRetentionDays at most once an hour per instance", async () => {
    const { auth, stores, clock } = createTestAuth({ auditRetentionDays: 30, email: { loginAlerts: false } });
    const sweeps: number[] = [];
    const original = stores.auditLog.sweepAudit.bind(stores.auditLog);
    stores.auditLog.sweepAudit = async (olderThan) => {
      sweeps.push(olderThan);
      return original(olderThan);
    };
    const days30 = 30 * 86_400_000;
    const start = clock.now();
    await auth.host.createUser({}, { email: "a@example.test" });
    clock.advance(60_000);
    await auth.host.createUser({}, { email: "b@example.test" });
    expect(sweeps).toEqual([start - days30]);
    clock.advance(3600 * 1000);
    await auth.host.createUser({}, { email: "c@example.test" });
    expect(sweeps).toEqual([start - days30, start + 3_660_000 - days30]);
  });
});
