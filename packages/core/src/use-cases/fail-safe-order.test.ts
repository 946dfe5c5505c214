import { createMemoryStores } from "@portcullis/store-memory";
import { createFakeClock, referenceTotp } from "@portcullis/testing";
import { describe, expect, it } from "vitest";
import { createAuth } from "../create-auth.js";
import { silentLogger } from "../ports/logger.js";
import type { EmailMessage } from "../ports/mailer.js";
import type { SingleUseTokenStore } from "../ports/single-use-token-store.js";
import {
  APP_ORIGIN,
  code,
  createLineLogger,
  fastHasher,
  PASSWORD,
  signIn,
  TEST_SECRET,
} from "../test-support.js";
import { TOKEN_CLAIM_LEASE_MS } from "../tokens/purposes.js";
import { parseRefreshToken } from "../tokens/refresh-token.js";

/**
 * Fault injection over every step of a password reset (and of `setPassword`, TOTP setup and
 * turning email 2FA on) (docs/security.md, "Fail-safe order of multi-step changes"): each store and hasher call the reset makes is, in turn, made to fail (a
 * store error, a cancelled statement) or to never return (the process dies there: kill -9), and the
 * stores are then checked: either the old password with a link that still works, or the new
 * password with no session from before the reset. The steps are counted from a clean run, so a
 * step added to the reset is covered without changing this test.
 */

const EMAIL = "ada@example.test";
const NEW_PASSWORD = "a brand new passphrase";
/** Calls that are not steps: synchronous helpers and the memory store's housekeeping. */
const NOT_STEPS = new Set(["needsRehash", "createSessionId", "createAccessTokenId", "sweep", "size"]);

type Mode = "fail" | "crash";

interface Fault {
  armed: boolean;
  at: number;
  mode: Mode;
  calls: string[];
}

/** Counts each call of `target`'s methods while the fault is armed, and fails or hangs the `at`-th. */
function instrument<T extends object>(name: string, target: T, fault: Fault): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      const value = Reflect.get(object, property, receiver);
      if (typeof value !== "function" || NOT_STEPS.has(String(property))) return value;
      return (...args: unknown[]) => {
        if (fault.armed) {
          fault.calls.push(`${name}.${String(property)}`);
          if (fault.calls.length === fault.at) {
            return fault.mode === "fail"
              ? Promise.reject(new Error(`injected failure in ${name}.${String(property)}`))
              : new Promise(() => {});
          }
        }
        return value.apply(object, args);
      };
    },
  });
}

/** A store without the optional claim methods: the core falls back to consuming the token first. */
function withoutClaims(store: SingleUseTokenStore): SingleUseTokenStore {
  return new Proxy(store, {
    get(object, property, receiver) {
      if (property === "claimToken" || property === "releaseToken") return undefined;
      return Reflect.get(object, property, receiver);
    },
  });
}

/** One user signed in (the session from before the reset) and holding a reset link. */
async function scenario(options: { claims: boolean }) {
  const clock = createFakeClock({ start: Date.UTC(2026, 0, 1) });
  const memory = createMemoryStores({ clock, sweepIntervalMs: 0 });
  const fault: Fault = { armed: false, at: 0, mode: "fail", calls: [] };
  const tokens = options.claims ? memory.singleUseTokens : withoutClaims(memory.singleUseTokens);
  const stores = {
    users: instrument("users", memory.users, fault),
    cooldowns: instrument("cooldowns", memory.cooldowns, fault),
    sessions: instrument("sessions", memory.sessions, fault),
    allowlist: instrument("allowlist", memory.allowlist, fault),
    singleUseTokens: instrument("singleUseTokens", tokens, fault),
  };
  const hasher = fastHasher();
  const sent: EmailMessage[] = [];
  const build = () =>
    createAuth({
      secret: TEST_SECRET,
      stores,
      clock,
      appOrigin: APP_ORIGIN,
      logger: silentLogger,
      passwordHasher: instrument("hasher", hasher, fault),
      mailer: { send: async (message) => void sent.push(message) },
      email: { enabled: true, loginAlerts: false },
    });
  const auth = build();
  await auth.ready();
  await auth.register({}, { email: EMAIL, password: PASSWORD });
  const before = await signIn(auth, { email: EMAIL, password: PASSWORD });
  await auth.requestPasswordReset({}, { email: EMAIL });
  await auth.idle();
  const html = sent.filter((message) => message.kind === "password-reset").at(-1)?.html ?? "";
  const token = /token=([A-Za-z0-9_-]+)/.exec(html)?.[1] ?? "";
  expect(token).not.toBe("");
  const userId = (await memory.users.findByEmail(EMAIL))?.id ?? "";

  /** After `setPassword` (no link): the new password and no session from before, or the old password. */
  async function checkSetPassword(checker: ReturnType<typeof build>): Promise<"old" | "new"> {
    const oldAccess = await code(checker.authenticate({ token: before.accessToken }));
    const oldRefresh = await code(checker.refresh({ token: before.refreshToken }));
    const hash = (await memory.users.findById(userId))?.passwordHash ?? "";
    if (await hasher.verify(hash, NEW_PASSWORD)) {
      expect({ oldAccess, oldRefresh }).toEqual({
        oldAccess: "ACCESS_TOKEN_INVALID",
        oldRefresh: "REFRESH_TOKEN_INVALID",
      });
      return "new";
    }
    expect(await hasher.verify(hash, PASSWORD)).toBe(true);
    return "old";
  }
  /** The invariant, checked through `checker` (the same process after a failure, a new one after a crash). */
  async function check(checker: ReturnType<typeof build>): Promise<"old" | "new"> {
    if ((await checkSetPassword(checker)) === "new") return "new";
    // The old state: the link works, and using it now completes the reset.
    expect(await code(checker.resetPassword({ token }, { newPassword: NEW_PASSWORD }))).toBe("OK");
    expect(await code(checker.authenticate({ token: before.accessToken }))).toBe("ACCESS_TOKEN_INVALID");
    expect(await code(signIn(checker, { email: EMAIL, password: NEW_PASSWORD }))).toBe("OK");
    return "old";
  }
  return { auth, build, clock, fault, token, userId, memory, before, sent, check, checkSetPassword };
}

/** The store and hasher calls of a reset that runs without a fault. */
async function stepsOfCleanReset(claims: boolean): Promise<string[]> {
  const { auth, fault, token, check } = await scenario({ claims });
  Object.assign(fault, { armed: true, at: 0 });
  expect(await code(auth.resetPassword({ token }, { newPassword: NEW_PASSWORD }))).toBe("OK");
  fault.armed = false;
  expect(await check(auth)).toBe("new");
  return fault.calls;
}

describe("resetPassword under faults", () => {
  it("resetPassword - runs its steps in the fail-safe order", async () => {
    const steps = await stepsOfCleanReset(true);
    const first = (call: string) => steps.indexOf(call);
    const order = [
      first("singleUseTokens.claimToken"),
      first("hasher.hash"),
      first("sessions.deleteUserSessions"),
      first("users.update"),
      steps.lastIndexOf("sessions.deleteUserSessions"),
      first("singleUseTokens.deleteUserTokens"),
    ];
    expect(order.every((index) => index >= 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(first("users.update")).toBeLessThan(steps.lastIndexOf("sessions.deleteUserSessions"));
  });

  for (const claims of [true, false]) {
    it(`resetPassword - a failure at any step leaves the old password with a working link or the new one without old sessions (${claims ? "claims" : "store without claims"})`, async () => {
      const steps = await stepsOfCleanReset(claims);
      const outcomes: Record<string, number> = {};
      for (let at = 1; at <= steps.length; at++) {
        const { auth, fault, token, check } = await scenario({ claims });
        Object.assign(fault, { armed: true, at, mode: "fail", calls: [] });
        const answer = await code(auth.resetPassword({ token }, { newPassword: NEW_PASSWORD }));
        fault.armed = false;
        expect(fault.calls[at - 1], `step ${at}`).toBe(steps[at - 1]);
        const state = await check(auth);
        if (answer === "OK") expect(state, `step ${at}: ${steps[at - 1]}`).toBe("new");
        const key = `${state}:${answer}`;
        outcomes[key] = (outcomes[key] ?? 0) + 1;
      }
      // Both sides of the line are reached: failures before the password is set and after it.
      expect(Object.keys(outcomes).some((key) => key.startsWith("old:"))).toBe(true);
      expect(Object.keys(outcomes).some((key) => key.startsWith("new:") && key !== "new:OK")).toBe(true);
    });
  }

  it("resetPassword - the process dying at any step (the call never returns) leaves the old password with a link that works after the lease, or the new one without old sessions", async () => {
    const steps = await stepsOfCleanReset(true);
    const states = { old: 0, new: 0 };
    for (let at = 1; at <= steps.length; at++) {
      const { auth, build, clock, fault, token, check } = await scenario({ claims: true });
      Object.assign(fault, { armed: true, at, mode: "crash", calls: [] });
      void auth.resetPassword({ token }, { newPassword: NEW_PASSWORD });
      for (let waited = 0; fault.calls.length < at && waited < 2_000; waited += 5)
        await new Promise((resolve) => setTimeout(resolve, 5));
      fault.armed = false;
      expect(fault.calls.length, `stopped at step ${at}`).toBe(at);
      // A new process over the same stores, once the dead request's claim has run out.
      clock.advance(TOKEN_CLAIM_LEASE_MS + 1_000);
      const restarted = build();
      await restarted.ready();
      states[await check(restarted)] += 1;
    }
    expect(states.old).toBeGreaterThan(0);
    expect(states.new).toBeGreaterThan(0);
  });

  it("setPassword - a failure at any step leaves the old password or the new one without old sessions", async () => {
    const clean = await scenario({ claims: true });
    Object.assign(clean.fault, { armed: true, at: 0 });
    await clean.auth.admin.setPassword({}, { userId: clean.userId, password: NEW_PASSWORD });
    clean.fault.armed = false;
    const steps = clean.fault.calls;
    expect(steps.indexOf("sessions.deleteUserSessions")).toBeLessThan(steps.indexOf("users.update"));
    const states = { old: 0, new: 0 };
    for (let at = 1; at <= steps.length; at++) {
      const { auth, fault, userId, checkSetPassword } = await scenario({ claims: true });
      Object.assign(fault, { armed: true, at, mode: "fail", calls: [] });
      const answer = await code(auth.admin.setPassword({}, { userId, password: NEW_PASSWORD }));
      fault.armed = false;
      const state = await checkSetPassword(auth);
      if (answer === "OK") expect(state).toBe("new");
      states[state] += 1;
    }
    expect(states.old).toBeGreaterThan(0);
    expect(states.new).toBeGreaterThan(0);
  });

  /** A user with a second session (the one that must end), in TOTP setup from the current one. */
  async function totpScenario() {
    const base = await scenario({ claims: true });
    const { auth, memory, userId } = base;
    await memory.users.update(userId, { emailVerified: true });
    const current = await signIn(auth, { email: EMAIL, password: PASSWORD });
    const principal = await auth.authenticate({ token: current.accessToken });
    const stepUp = await auth.stepUp({ principal }, { password: PASSWORD });
    if (stepUp.twoFactorRequired) throw new Error("unexpected 2FA");
    const setup = await auth.getTotpSetup({ principal, stepUpToken: stepUp.stepUpToken });
    const confirm = (checker: typeof auth) =>
      checker.confirmTotpSetup(
        { principal, stepUpToken: stepUp.stepUpToken },
        {
          setupToken: setup.setupToken,
          code: referenceTotp(setup.secret, base.clock.now()),
        },
      );
    /** TOTP on and the other session gone, or TOTP off and the setup still usable (used now). */
    async function checkTotp(checker: typeof auth): Promise<"old" | "new"> {
      const other = await code(checker.authenticate({ token: base.before.accessToken }));
      const user = await memory.users.findById(userId);
      if (user?.twoFactor.methods.includes("totp")) {
        expect(other).toBe("ACCESS_TOKEN_INVALID");
        return "new";
      }
      base.clock.advance(30_000);
      expect(await code(confirm(checker))).toBe("OK");
      expect(await code(checker.authenticate({ token: base.before.accessToken }))).toBe(
        "ACCESS_TOKEN_INVALID",
      );
      return "old";
    }
    return { ...base, confirm, checkTotp };
  }

  it("confirmTotpSetup - a failure or a crash at any step leaves 2FA as it was with the setup usable, or TOTP on without the other sessions", async () => {
    const clean = await totpScenario();
    Object.assign(clean.fault, { armed: true, at: 0 });
    expect(await code(clean.confirm(clean.auth))).toBe("OK");
    clean.fault.armed = false;
    const steps = clean.fault.calls;
    expect(steps.indexOf("sessions.deleteUserSessions")).toBeLessThan(steps.indexOf("users.update"));
    const states = { old: 0, new: 0 };
    for (const mode of ["fail", "crash"] as const) {
      for (let at = 1; at <= steps.length; at++) {
        const { auth, build, clock, fault, confirm, checkTotp } = await totpScenario();
        Object.assign(fault, { armed: true, at, mode, calls: [] });
        const answer = code(confirm(auth));
        if (mode === "fail") await answer;
        else
          for (let waited = 0; fault.calls.length < at && waited < 2_000; waited += 5)
            await new Promise((resolve) => setTimeout(resolve, 5));
        fault.armed = false;
        let checker = auth;
        if (mode === "crash") {
          clock.advance(TOKEN_CLAIM_LEASE_MS + 1_000);
          checker = build();
          await checker.ready();
        }
        states[await checkTotp(checker)] += 1;
      }
    }
    expect(states.old).toBeGreaterThan(0);
    expect(states.new).toBeGreaterThan(0);
  });

  /** A signed-in, stepped-up user (address verified) holding an emailed code to turn email 2FA on. */
  async function emailScenario(options: { claims: boolean } = { claims: true }) {
    const base = await scenario(options);
    const { auth, memory, userId, sent } = base;
    await memory.users.update(userId, { emailVerified: true });
    const current = await signIn(auth, { email: EMAIL, password: PASSWORD });
    const principal = await auth.authenticate({ token: current.accessToken });
    const stepUp = await auth.stepUp({ principal }, { password: PASSWORD });
    if (stepUp.twoFactorRequired) throw new Error("unexpected 2FA");
    await auth.sendTwoFactorEmailCode({ principal });
    await auth.idle();
    const mailed =
      /(\d{6})/.exec(sent.filter((m) => m.kind === "two-factor-code").at(-1)?.text ?? "")?.[1] ?? "";
    expect(mailed).not.toBe("");
    const enable = (checker: typeof auth, emailed = mailed) =>
      checker.enableEmailTwoFactor({ principal, stepUpToken: stepUp.stepUpToken }, { code: emailed });
    const emailOn = async () =>
      (await memory.users.findById(userId))?.twoFactor.methods.includes("email") ?? false;
    /** Email 2FA on, or off with the mailed code still turning it on (used now). */
    async function checkEmail(checker: typeof auth): Promise<"old" | "new"> {
      if (await emailOn()) return "new";
      expect(await code(enable(checker))).toBe("OK");
      expect(await emailOn()).toBe(true);
      return "old";
    }
    return { ...base, mailed, enable, emailOn, checkEmail };
  }

  for (const claims of [true, false]) {
    it(`enableEmailTwoFactor - a failure or a crash at any step leaves email 2FA off with the code usable, or on (${claims ? "claims" : "store without claims"})`, async () => {
      const clean = await emailScenario({ claims });
      Object.assign(clean.fault, { armed: true, at: 0 });
      expect(await code(clean.enable(clean.auth))).toBe("OK");
      clean.fault.armed = false;
      const steps = clean.fault.calls;
      // With claims the code is spent only after the method is saved; without, it is taken first.
      const spent = steps.lastIndexOf("singleUseTokens.consumeToken");
      if (claims) expect(spent).toBeGreaterThan(steps.indexOf("users.update"));
      else expect(spent).toBeLessThan(steps.indexOf("users.update"));
      expect(await code(clean.enable(clean.auth))).toBe("WRONG_TWO_FACTOR_CODE");
      const states = { old: 0, new: 0 };
      // Without claims the code is taken at once, so only a store failure can be given back.
      for (const mode of claims ? (["fail", "crash"] as const) : (["fail"] as const)) {
        for (let at = 1; at <= steps.length; at++) {
          const { auth, build, clock, fault, enable, checkEmail } = await emailScenario({ claims });
          Object.assign(fault, { armed: true, at, mode, calls: [] });
          const answer = code(enable(auth));
          if (mode === "fail") await answer;
          else
            for (let waited = 0; fault.calls.length < at && waited < 2_000; waited += 5)
              await new Promise((resolve) => setTimeout(resolve, 5));
          fault.armed = false;
          expect(fault.calls[at - 1], `${mode} at step ${at}`).toBe(steps[at - 1]);
          let checker = auth;
          if (mode === "crash") {
            clock.advance(TOKEN_CLAIM_LEASE_MS + 1_000);
            checker = build();
            await checker.ready();
          }
          try {
            states[await checkEmail(checker)] += 1;
          } catch (error) {
            throw new Error(`${mode} at step ${at} (${steps[at - 1]}): ${await answer}: ${error}`);
          }
        }
      }
      expect(states.old).toBeGreaterThan(0);
      // With claims a failure after the save (spending the code) leaves email 2FA on; without, the save is the last step.
      if (claims) expect(states.new).toBeGreaterThan(0);
    });
  }

  it("enableEmailTwoFactor - a failed save keeps the code: the same code turns email 2FA on afterwards", async () => {
    const { auth, memory, enable, emailOn } = await emailScenario();
    const update = memory.users.update.bind(memory.users);
    memory.users.update = async () => {
      throw new Error("injected users.update failure");
    };
    expect(await code(enable(auth))).toBe("DATABASE_FAILURE");
    memory.users.update = update;
    expect(await emailOn()).toBe(false);
    expect(await code(enable(auth))).toBe("OK");
    expect(await emailOn()).toBe(true);
  });

  for (const claims of [true, false]) {
    it(`enableEmailTwoFactor - of 8 concurrent enables with one code exactly one succeeds (${claims ? "claims" : "store without claims"})`, async () => {
      const { auth, enable, emailOn } = await emailScenario({ claims });
      const answers = await Promise.all(Array.from({ length: 8 }, () => code(enable(auth))));
      expect(answers.filter((answer) => answer === "OK")).toHaveLength(1);
      // The others read the held code as a wrong one, each counted: past the budget they are throttled.
      for (const answer of answers.filter((answer) => answer !== "OK")) {
        expect(["WRONG_TWO_FACTOR_CODE", "TWO_FACTOR_THROTTLED"]).toContain(answer);
      }
      expect(await emailOn()).toBe(true);
      expect(await code(enable(auth))).not.toBe("OK");
    });
  }

  it("enableEmailTwoFactor - wrong codes count against the 2FA budget; then the right code is refused too", async () => {
    const { auth, mailed, enable, emailOn } = await emailScenario();
    const wrong = String((Number(mailed) + 1) % 1_000_000).padStart(6, "0");
    const answers: string[] = [];
    for (let i = 0; i < 5; i++) answers.push(await code(enable(auth, wrong)));
    expect(answers).toEqual(Array(5).fill("WRONG_TWO_FACTOR_CODE"));
    expect(await code(enable(auth))).toBe("TWO_FACTOR_THROTTLED");
    expect(await emailOn()).toBe(false);
  });

  it("resetPassword - a store without claimToken still resets, and the core warns once that links are consumed first", async () => {
    const clock = createFakeClock({ start: Date.UTC(2026, 0, 1) });
    const memory = createMemoryStores({ clock, sweepIntervalMs: 0 });
    const { logger, lines } = createLineLogger();
    const sent: EmailMessage[] = [];
    const auth = createAuth({
      secret: TEST_SECRET,
      stores: { ...memory, singleUseTokens: withoutClaims(memory.singleUseTokens) },
      clock,
      appOrigin: APP_ORIGIN,
      logger,
      passwordHasher: fastHasher(),
      mailer: { send: async (message) => void sent.push(message) },
      email: { enabled: true, loginAlerts: false },
    });
    for (const email of ["ada@example.test", "bob@example.test"]) {
      await auth.register({}, { email, password: PASSWORD });
      await auth.requestPasswordReset({}, { email });
      await auth.idle();
      const html = sent
        .filter((message) => message.to === email && message.kind === "password-reset")
        .at(-1)?.html;
      const token = /token=([A-Za-z0-9_-]+)/.exec(html ?? "")?.[1] ?? "";
      expect(await code(auth.resetPassword({ token }, { newPassword: NEW_PASSWORD }))).toBe("OK");
      expect(await code(auth.resetPassword({ token }, { newPassword: NEW_PASSWORD }))).toBe(
        "PASSWORD_RESET_TOKEN_INVALID",
      );
    }
    const warnings = lines
      .map((line) => JSON.parse(line))
      .filter((entry) => entry.event === "token.claims_unsupported");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.level).toBe("warn");
  });
});

/** The `jti` an access token carries (read without checking: the test made it). */
const jtiOf = (accessToken: string): string =>
  JSON.parse(Buffer.from(accessToken.split(".")[1] ?? "", "base64url").toString()).jti;

/** The SHA-256 of a held refresh token, as its session stores it. */
const hashOf = (tokens: HeldTokens) => parseRefreshToken(tokens.refreshToken)?.hash;

interface HeldTokens {
  accessToken: string;
  refreshToken: string;
  sessionId: string;
}

/**
 * The steps that start, rotate and end sessions (docs/security.md, "Fail-safe order"), each
 * failed and crashed in turn. The invariant: an access token the client holds authenticates only
 * while it is the current one of a live session, so no held token outlives its session or its
 * rotation.
 */
describe("session lifecycle under faults", () => {
  type Scenario = Awaited<ReturnType<typeof lifecycleScenario>>;
  /** The flows: each runs against the scenario and resolves to the tokens it handed out, if any. */
  const FLOWS: Record<string, (s: Scenario, auth: Scenario["auth"]) => Promise<HeldTokens | undefined>> = {
    "login (start)": (_, auth) => signIn(auth, { email: EMAIL, password: PASSWORD }),
    "refresh (rotate)": (s, auth) => auth.refresh({ token: s.before.refreshToken }),
    "refresh (the replaced token within the reuse interval)": (s, auth) =>
      auth.refresh({ token: s.other.refreshToken }),
    "logout (end one)": async (s, auth) =>
      void (await auth.logout({}, { accessToken: s.before.accessToken })),
    "sessions.revoke (end one)": async (s, auth) =>
      void (await auth.sessions.revoke({ principal: s.principal }, s.other.sessionId)),
    "sessions.revokeAll (end the user's)": async (s, auth) =>
      void (await auth.sessions.revokeAll({ principal: s.principal })),
    "sessions.revokeOthers (end the user's others)": async (s, auth) =>
      void (await auth.sessions.revokeOthers({ principal: s.principal })),
  };

  async function lifecycleScenario() {
    const base = await scenario({ claims: true });
    const other = await signIn(base.auth, { email: EMAIL, password: PASSWORD });
    // `other` is rotated once: its first refresh token is now the parent, within the interval.
    const otherNext = await base.auth.refresh({ token: other.refreshToken });
    const principal = await base.auth.authenticate({ token: base.before.accessToken });
    return { ...base, other, otherNext, principal };
  }

  /** Every held access token that authenticates is the current one of its live session. */
  async function expectSafe(s: Scenario, checker: Scenario["auth"], held: HeldTokens[], label: string) {
    for (const tokens of held) {
      const answer = await code(checker.authenticate({ token: tokens.accessToken }));
      const session = await s.memory.sessions.getSession(tokens.sessionId);
      if (answer === "OK") expect(session?.accessTokenJti, label).toBe(jtiOf(tokens.accessToken));
    }
  }

  /** The store calls of a clean run of `flow`. */
  async function cleanSteps(flow: string): Promise<string[]> {
    const s = await lifecycleScenario();
    Object.assign(s.fault, { armed: true, at: 0, calls: [] });
    await FLOWS[flow]?.(s, s.auth);
    s.fault.armed = false;
    return s.fault.calls;
  }

  it("session lifecycle - starts, rotates and ends sessions in the fail-safe order", async () => {
    const before = (steps: string[], a: string, b: string) => {
      expect(steps.indexOf(a), `${a} in ${steps.join(", ")}`).toBeGreaterThanOrEqual(0);
      expect(steps.indexOf(a), `${a} before ${b}`).toBeLessThan(steps.indexOf(b));
    };
    before(await cleanSteps("login (start)"), "allowlist.allowAccessToken", "sessions.createSession");
    const rotate = await cleanSteps("refresh (rotate)");
    before(rotate, "allowlist.allowAccessToken", "sessions.rotateRefreshToken");
    before(rotate, "allowlist.revokeAccessTokens", "sessions.rotateRefreshToken");
    const current = await cleanSteps("refresh (the replaced token within the reuse interval)");
    before(current, "allowlist.allowAccessToken", "sessions.rotateRefreshToken");
    // The jti allowed for a rotation that did not happen is revoked after it: never handed out.
    before(current, "sessions.rotateRefreshToken", "allowlist.revokeAccessTokens");
    before(await cleanSteps("logout (end one)"), "allowlist.revokeAccessTokens", "sessions.deleteSession");
    const all = await cleanSteps("sessions.revokeAll (end the user's)");
    before(all, "sessions.listSessions", "allowlist.revokeAccessTokens");
    before(all, "allowlist.revokeAccessTokens", "sessions.deleteUserSessions");
  });

  for (const flow of Object.keys(FLOWS)) {
    it(`${flow} - a failure or a crash at any step leaves no held access token beyond its session`, async () => {
      const steps = await cleanSteps(flow);
      expect(steps.length).toBeGreaterThan(1);
      for (const mode of ["fail", "crash"] as const) {
        for (let at = 1; at <= steps.length; at++) {
          const s = await lifecycleScenario();
          Object.assign(s.fault, { armed: true, at, mode, calls: [] });
          const run = FLOWS[flow]?.(s, s.auth).then(
            (issued) => ({ issued }),
            () => ({ issued: undefined }),
          );
          if (mode === "fail") await run;
          else
            for (let waited = 0; s.fault.calls.length < at && waited < 2_000; waited += 5)
              await new Promise((resolve) => setTimeout(resolve, 5));
          s.fault.armed = false;
          const label = `${flow}: ${mode} at step ${at} (${steps[at - 1]})`;
          expect(s.fault.calls[at - 1], label).toBe(steps[at - 1]);
          const issued = mode === "fail" ? (await run)?.issued : undefined;
          const checker = mode === "crash" ? s.build() : s.auth;
          await expectSafe(s, checker, [s.before, s.other, s.otherNext, ...(issued ? [issued] : [])], label);
          // A refresh token that is still current refreshes: the client recovers by retrying.
          const current = await s.memory.sessions.getSession(s.before.sessionId);
          if (flow === "refresh (rotate)" && !issued && current?.refreshTokenHash === hashOf(s.before)) {
            expect(await code(checker.refresh({ token: s.before.refreshToken })), label).toBe("OK");
          }
          const other = await s.memory.sessions.getSession(s.other.sessionId);
          if (flow.includes("reuse interval") && !issued && other?.refreshTokenHash === hashOf(s.otherNext)) {
            expect(await code(checker.refresh({ token: s.other.refreshToken })), label).toBe("OK");
          }
        }
      }
    });
  }
});
