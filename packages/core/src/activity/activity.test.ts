import { createMemoryStores } from "@portcullis/store-memory";
import { describe, expect, it } from "vitest";
import type { SecurityEvent } from "../events.js";
import type { ActivityStore } from "../ports/activity-store.js";
import { createBackgroundTasks } from "../support/background.js";
import { code, createLineLogger, createTestAuth, PASSWORD, signIn } from "../test-support.js";
import { activityEntry, createActivityRecorder } from "./activity.js";

const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
const request = { ip: "203.0.113.9", userAgent: FIREFOX };

const event = (fields: Partial<SecurityEvent>): SecurityEvent => ({
  type: "login.succeeded",
  time: 1_000,
  userId: "u1",
  sessionId: "s1",
  ip: null,
  userAgent: null,
  reason: null,
  ...fields,
});

/** An activity store whose writes take `delayMs` of real time (and then fail, with `fail`). */
function slowActivity(delayMs: number, fail = false): ActivityStore {
  const inner = createMemoryStores({ sweepIntervalMs: 0 }).activity;
  return {
    ...inner,
    async record(entry, retentionMs) {
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      if (fail) throw new Error("activity store down");
      return inner.record(entry, retentionMs);
    },
  };
}

describe("activity", () => {
  it("activityEntry - a sign-in names its method (password when the event has none), browser and OS from the User-Agent", () => {
    expect(activityEntry(event({ ip: "203.0.113.9", userAgent: FIREFOX }), "a1")).toEqual({
      id: "a1",
      userId: "u1",
      type: "login.succeeded",
      at: 1_000,
      ip: "203.0.113.9",
      browser: "Firefox 128",
      os: "Linux",
      reason: "password",
    });
    expect(activityEntry(event({ reason: "oidc:github" }), "a2")?.reason).toBe("oidc:github");
  });

  it("activityEntry - a sign-in with the session's device takes its browser and OS over the User-Agent's", () => {
    const device = { browser: "Portcullis Mobile 3", os: "PocketOS 7" };
    expect(activityEntry(event({ userAgent: FIREFOX, device }), "a1")).toMatchObject(device);
  });

  it("activityEntry - no entry without a user, nor for session.created, user.deleted or ip.limited", () => {
    expect(
      activityEntry(event({ type: "login.failed", userId: null, reason: "unknown_email" }), "a"),
    ).toBeNull();
    for (const type of ["session.created", "user.deleted", "ip.limited"] as const) {
      expect(activityEntry(event({ type }), "a")).toBeNull();
    }
  });

  it("listActivity - a sign-in's entry is written before the sign-in answers, though the write is slow", async () => {
    const { auth } = createTestAuth({
      email: { enabled: false },
      stores: { ...createMemoryStores({ sweepIntervalMs: 0 }), activity: slowActivity(150) },
    });
    const user = await auth.host.createUser(
      {},
      { email: "ada@example.test", password: PASSWORD, emailVerified: true },
    );
    let answered = false;
    const login = signIn(auth, { email: "ada@example.test", password: PASSWORD }, request).then((result) => {
      answered = true;
      return result;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(answered).toBe(false);
    const principal = await auth.authenticate({ token: (await login).accessToken });
    const page = await auth.activity.list({ principal });
    expect(page.items.map((item) => item.type)).toEqual(["login.succeeded", "user.created"]);
    expect(page.items[0]).toMatchObject({
      ip: "203.0.113.9",
      browser: "Firefox 128",
      os: "Linux",
      reason: "password",
    });
    expect((await auth.host.listActivity({}, { userId: user.id })).items).toHaveLength(2);
  });

  it("recorder - with recordMany: one turn's entries in one call, one call in flight, the next batch grows meanwhile; a failure is logged with its count", async () => {
    const { logger, lines } = createLineLogger();
    const inner = createMemoryStores({ sweepIntervalMs: 0 }).activity;
    const calls: { ids: string[]; release: () => void; fail: boolean }[] = [];
    const store: ActivityStore = {
      ...inner,
      record: () => Promise.reject(new Error("record is not used when recordMany is there")),
      async recordMany(entries, retentionMs) {
        const call = { ids: entries.map((entry) => entry.id), release: () => {}, fail: false };
        calls.push(call);
        await new Promise<void>((resolve) => {
          call.release = resolve;
        });
        if (call.fail) throw new Error("activity store down");
        for (const entry of entries) await inner.record(entry, retentionMs);
      },
    };
    const recorder = createActivityRecorder({
      store,
      retentionDays: 90,
      logger,
      background: createBackgroundTasks(logger),
    });
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    let answered = false;
    const call = recorder
      .within(async () => {
        for (const userId of ["u1", "u2", "u1"]) recorder.observe(event({ userId }));
        return "answer";
      })
      .then((answer) => {
        answered = true;
        return answer;
      });
    await turn();
    expect(calls.map((one) => one.ids.length)).toEqual([3]);
    // Two more turns of events while the first batch is in flight: they wait, in one batch.
    recorder.observe(event({ userId: "u3" }));
    await turn();
    recorder.observe(event({ userId: "u3", type: "login.failed" }));
    await turn();
    expect(calls).toHaveLength(1);
    expect(answered).toBe(false);
    calls[0]?.release();
    expect(await call).toBe("answer");
    await turn();
    expect(calls.map((one) => one.ids.length)).toEqual([3, 2]);
    const second = calls[1];
    if (second) {
      second.fail = true;
      second.release();
    }
    await turn();
    await turn();
    const u1 = await inner.list("u1", { limit: 10 });
    expect(u1).toHaveLength(2);
    expect(await inner.list("u3", { limit: 10 })).toEqual([]);
    expect(lines.filter((line) => /"event":"activity.write_failed".*"count":2/.test(line))).toHaveLength(1);
  });

  it("listActivity - a failed write is logged and the sign-in still succeeds", async () => {
    const { logger, lines } = createLineLogger();
    const { auth } = createTestAuth({
      email: { enabled: false },
      logger,
      stores: { ...createMemoryStores({ sweepIntervalMs: 0 }), activity: slowActivity(1, true) },
    });
    await auth.host.createUser({}, { email: "ada@example.test", password: PASSWORD, emailVerified: true });
    const signedIn = await signIn(auth, { email: "ada@example.test", password: PASSWORD }, request);
    expect(signedIn.accessToken).toEqual(expect.any(String));
    expect(lines.filter((line) => line.includes('"event":"activity.write_failed"')).length).toBeGreaterThan(
      0,
    );
  });

  it("listActivity - pages with nextCursor, newest first; a cursor this server did not make is VALIDATION_FAILED", async () => {
    const { auth } = createTestAuth({ email: { enabled: false } });
    const user = await auth.host.createUser(
      {},
      { email: "ada@example.test", password: PASSWORD, emailVerified: true },
    );
    for (let i = 0; i < 4; i++)
      await code(auth.login({ request }, { email: "ada@example.test", password: "wrong" }));
    const first = await auth.host.listActivity({}, { userId: user.id, limit: 3 });
    expect(first.items.map((item) => item.type)).toEqual(["login.failed", "login.failed", "login.failed"]);
    const second = await auth.host.listActivity(
      {},
      { userId: user.id, limit: 3, cursor: first.nextCursor ?? "" },
    );
    expect(second.items.map((item) => item.type)).toEqual(["login.failed", "user.created"]);
    expect(second.nextCursor).toBeNull();
    for (const cursor of ["nonsense!", Buffer.from("1.UPPER").toString("base64url"), "x".repeat(300)]) {
      expect(await code(auth.host.listActivity({}, { userId: user.id, cursor }))).toBe("VALIDATION_FAILED");
    }
    expect(await code(auth.host.listActivity({}, { userId: user.id, limit: 0 }))).toBe("VALIDATION_FAILED");
  });

  it("listActivity - entries past activityRetentionDays are not listed, and deleteUser removes the activity", async () => {
    const { auth, clock, stores } = createTestAuth({ email: { enabled: false }, activityRetentionDays: 1 });
    const user = await auth.host.createUser(
      {},
      { email: "ada@example.test", password: PASSWORD, emailVerified: true },
    );
    clock.advance(24 * 3600 * 1000 + 1);
    expect((await auth.host.listActivity({}, { userId: user.id })).items).toEqual([]);
    await auth.host.markEmailVerified({}, user.id);
    expect((await auth.host.listActivity({}, { userId: user.id })).items.map((item) => item.type)).toEqual([
      "email.verified",
    ]);
    await auth.host.deleteUser({}, user.id);
    expect(await stores.activity.list(user.id, { limit: 10 })).toEqual([]);
  });

  it("listActivity - admin actions and a reused refresh token are in the account's activity", async () => {
    const { auth, clock } = createTestAuth({ email: { enabled: false }, refreshReuseIntervalSeconds: 0 });
    const user = await auth.host.createUser({}, { email: "ada@example.test", password: PASSWORD });
    await auth.host.markEmailVerified({}, user.id);
    const first = await signIn(auth, { email: "ada@example.test", password: PASSWORD }, request);
    clock.advance(1_000);
    await auth.refresh({ token: first.refreshToken, request });
    expect(await code(auth.refresh({ token: first.refreshToken, request }))).toBe("REFRESH_TOKEN_INVALID");
    await auth.host.setPassword({}, { userId: user.id, password: `${PASSWORD} again` });
    const page = await auth.host.listActivity({}, { userId: user.id });
    expect(page.items.map((item) => `${item.type} ${item.reason ?? ""}`.trim())).toEqual([
      "password.set admin",
      "refresh_token.reused session_revoked",
      "login.succeeded password",
      "email.verified admin",
      "user.created admin",
    ]);
  });
});
