import { createMemoryStores } from "@portcullis/store-memory";
import { createFakeClock, referenceTotp } from "@portcullis/testing";
import { describe, expect, it } from "vitest";
import { createAuth } from "../create-auth/create-auth.js";
import type { EmailMessage } from "../ports/mailer.js";
import {
  APP_ORIGIN,
  code,
  createLineLogger,
  fastHasher,
  PASSWORD,
  signIn,
  TEST_SECRET,
} from "../test-support.js";
import { EMAIL, NEW_PASSWORD, scenario, withoutClaims } from "../test-support-faults.js";
import { TOKEN_CLAIM_LEASE_MS } from "../tokens/purposes.js";

/**
 * Fault injection over every step of a password reset (and of `setPassword`, TOTP setup and
 * turning email 2FA on) (docs/security.md, "Fail-safe order of multi-step changes"): each store and hasher call the reset makes is, in turn, made to fail (a
 * store error, a cancelled statement) or to never return (the process dies there: kill -9), and the
 * stores are then checked: either the old password with a link that still works, or the new
 * password with no session from before the reset. The steps are counted from a clean run, so a
 * step added to the reset is covered without changing this test.
 */

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
    await clean.auth.host.setPassword({}, { userId: clean.userId, password: NEW_PASSWORD });
    clean.fault.armed = false;
    const steps = clean.fault.calls;
    expect(steps.indexOf("sessions.deleteUserSessions")).toBeLessThan(steps.indexOf("users.update"));
    const states = { old: 0, new: 0 };
    for (let at = 1; at <= steps.length; at++) {
      const { auth, fault, userId, checkSetPassword } = await scenario({ claims: true });
      Object.assign(fault, { armed: true, at, mode: "fail", calls: [] });
      const answer = await code(auth.host.setPassword({}, { userId, password: NEW_PASSWORD }));
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
