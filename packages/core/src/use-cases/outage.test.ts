import { describe, expect, it } from "vitest";
import type { Auth } from "../create-auth/create-auth.js";
import { createSecurityEvents } from "../events.js";
import { createLimits, type IpLimitName, type LimitOptions } from "../limits/limits.js";
import { silentLogger } from "../ports/logger.js";
import type { PasswordHasher } from "../ports/password-hasher.js";
import { code, createTestAuth, EMAIL_TWO_FACTOR, fastHasher, PASSWORD, signIn } from "../test-support.js";
import { EMAIL_CODE_PURPOSE } from "../tokens/purposes.js";
import { checkCounted } from "../two-factor/check.js";

// docs/limits.md, "Outages": an outage never counts against a user. Every attempt a store (or the hasher)
// kept from being checked is given back; a guess that was evaluated stays counted. The IP is a
// public one, so the per-IP budgets count too (loopback is not limited per IP).
const REQUEST = { ip: "203.0.113.7" };
const WRONG = "not the right password at all";
const down = () => Promise.reject(new Error("connect ECONNREFUSED 127.0.0.1:5432"));
/** Like `code`, with "thrown" for an error that is no `AuthError` (the HTTP layer's INTERNAL_ERROR). */
const outcome = async (promise: Promise<unknown>) => (await code(promise)) ?? "thrown";

const IP_NAMES: IpLimitName[] = [
  "failedLogins",
  "wrongTwoFactorCodes",
  "registrations",
  "passwordResetRequests",
  "verificationSends",
  "invalidTokens",
  "emailSignInRequests",
  "passkeySignInStarts",
  "ssoSignInStarts",
];
/** The account budgets of the defaults, per-IP limits off. */
const LIMITS: LimitOptions = {
  loginThrottle: { freeAttempts: 5, windowSeconds: 900, baseLockSeconds: 30, maxLockSeconds: 900 },
  twoFactor: { maxFailedAttempts: 5, lockoutSeconds: 900 },
  ipLimits: {
    enabled: false,
    ...(Object.fromEntries(IP_NAMES.map((name) => [name, { max: 100, windowSeconds: 900 }])) as Record<
      IpLimitName,
      { max: number; windowSeconds: number }
    >),
  },
  emailSignIn: { ttlSeconds: 600, maxWrongCodes: 5 },
};

/** A hasher that can be made to fail before it evaluates anything. */
function breakableHasher() {
  const base = fastHasher();
  const state = { broken: false };
  const hasher: PasswordHasher = {
    hash: (password) => base.hash(password),
    verify: (hash, password) =>
      state.broken ? Promise.reject(new Error("hasher pool gone")) : base.verify(hash, password),
    needsRehash: (hash) => base.needsRehash(hash),
  };
  return { hasher, state };
}

function setup() {
  const { hasher, state } = breakableHasher();
  const env = createTestAuth({ passwordHasher: hasher, email: { loginAlerts: false } });
  return { ...env, hasher: state };
}

/** `n` logins with `password`, one after the other: their codes. */
async function logins(auth: Auth, n: number, password = WRONG, email = "ada@example.test") {
  const codes: string[] = [];
  for (let i = 0; i < n; i++)
    codes.push(await outcome(auth.login({ request: REQUEST }, { email, password })));
  return codes;
}

describe("outages", () => {
  it("login - 20 logins failed by a users-store outage are DATABASE_FAILURE and count nothing: the right password signs in", async () => {
    const { auth, stores } = setup();
    await auth.register({}, { email: "ada@example.test", password: PASSWORD });
    const findByEmail = stores.users.findByEmail;
    stores.users.findByEmail = down;
    expect(new Set(await logins(auth, 20, PASSWORD))).toEqual(new Set(["DATABASE_FAILURE"]));
    stores.users.findByEmail = findByEmail;
    expect(await code(signIn(auth, { email: "ada@example.test", password: PASSWORD }, REQUEST))).toBe("OK");
  });

  it("login - attempts failed by an outage are given back, evaluated wrong passwords stay counted", async () => {
    const { auth, stores, hasher } = setup();
    await auth.register({}, { email: "ada@example.test", password: PASSWORD });
    const findByEmail = stores.users.findByEmail;
    expect(await logins(auth, 3)).toEqual(Array(3).fill("INVALID_CREDENTIALS"));
    stores.users.findByEmail = down;
    expect(new Set(await logins(auth, 10))).toEqual(new Set(["DATABASE_FAILURE"]));
    stores.users.findByEmail = findByEmail;
    hasher.broken = true;
    expect(new Set(await logins(auth, 10))).toEqual(new Set(["thrown"]));
    hasher.broken = false;
    // Five free attempts: the three wrong guesses before the outage and two more, then the lock.
    expect(await logins(auth, 3)).toEqual(["INVALID_CREDENTIALS", "INVALID_CREDENTIALS", "LOGIN_THROTTLED"]);
  });

  it("login - 5 concurrent logins during an outage, then the address's budget is whole", async () => {
    const { auth, stores } = setup();
    await auth.register({}, { email: "ada@example.test", password: PASSWORD });
    const findByEmail = stores.users.findByEmail;
    stores.users.findByEmail = down;
    const during = await Promise.all(
      Array.from({ length: 5 }, () =>
        code(auth.login({ request: REQUEST }, { email: "ada@example.test", password: WRONG })),
      ),
    );
    expect(new Set(during)).toEqual(new Set(["DATABASE_FAILURE"]));
    stores.users.findByEmail = findByEmail;
    expect(await logins(auth, 6)).toEqual([...Array(5).fill("INVALID_CREDENTIALS"), "LOGIN_THROTTLED"]);
  });

  it("login - the counters' store down names it; with the users store down too, DATABASE_FAILURE names the database", async () => {
    const { auth, stores } = setup();
    await auth.register({}, { email: "ada@example.test", password: PASSWORD });
    const hit = stores.cooldowns.hit;
    stores.cooldowns.hit = down;
    expect(await logins(auth, 1, PASSWORD)).toEqual(["EMAIL_COOLDOWN_CACHE_FAILURE"]);
    stores.users.findByEmail = down;
    expect(await logins(auth, 1, PASSWORD)).toEqual(["DATABASE_FAILURE"]);
    stores.cooldowns.hit = hit;
  });

  it("login - the IP's count is given back when the address's counter cannot be read", async () => {
    const { auth, stores } = setup();
    await auth.register({}, { email: "ada@example.test", password: PASSWORD });
    const hit = stores.cooldowns.hit;
    // Only the per-address counter fails: the per-IP one counted each attempt first.
    stores.cooldowns.hit = (key, windowMs) =>
      key.startsWith("throttle:password:") ? down() : hit.call(stores.cooldowns, key, windowMs);
    expect(new Set(await logins(auth, 120, PASSWORD))).toEqual(new Set(["EMAIL_COOLDOWN_CACHE_FAILURE"]));
    stores.cooldowns.hit = hit;
    // 100 failed logins per IP by default: 120 uncounted attempts leave the IP's budget whole.
    const others = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        code(auth.login({ request: REQUEST }, { email: `u${i}@x.test`, password: WRONG })),
      ),
    );
    expect(new Set(others)).toEqual(new Set(["INVALID_CREDENTIALS"]));
  });

  /**
   * An account with email 2FA at its login's 2FA step: the 2FA token, the emailed code, and
   * `storeDown()`, which makes the emailed code's store fail until the function it returns is called.
   */
  async function emailTwoFactorStep() {
    const { auth, stores, sent } = setup();
    await auth.register({}, { email: "ada@example.test", password: PASSWORD });
    const user = await stores.users.findByEmail("ada@example.test");
    await stores.users.update(user?.id ?? "", { emailVerified: true, twoFactor: EMAIL_TWO_FACTOR });
    const login = await auth.login({ request: REQUEST }, { email: "ada@example.test", password: PASSWORD });
    if (!login.twoFactorRequired) throw new Error("expected 2FA");
    const emailed = sent.at(-1)?.text.match(/\b\d{6}\b/)?.[0] ?? "";
    expect(emailed).toMatch(/^\d{6}$/);
    const storeDown = () => {
      const consumeToken = stores.singleUseTokens.consumeToken;
      stores.singleUseTokens.consumeToken = (purpose, hash) =>
        purpose === EMAIL_CODE_PURPOSE ? down() : consumeToken.call(stores.singleUseTokens, purpose, hash);
      return () => {
        stores.singleUseTokens.consumeToken = consumeToken;
      };
    };
    return { auth, token: login.twoFactorAuthenticationToken, emailed, storeDown };
  }

  it("completeTwoFactorLogin - 20 codes failed by a session-store outage count nothing: 5 wrong codes, then the lock", async () => {
    const { auth, token, emailed, storeDown } = await emailTwoFactorStep();
    const back = storeDown();
    for (let i = 0; i < 20; i++)
      expect(await code(auth.completeTwoFactorLogin({ token, request: REQUEST }, { code: emailed }))).toBe(
        "DATABASE_FAILURE",
      );
    back();
    const wrong = emailed === "000000" ? "000001" : "000000";
    const codes: string[] = [];
    for (let i = 0; i < 6; i++)
      codes.push(await code(auth.completeTwoFactorLogin({ token, request: REQUEST }, { code: wrong })));
    expect(codes).toEqual([...Array(5).fill("WRONG_TWO_FACTOR_CODE"), "TWO_FACTOR_THROTTLED"]);
  });

  it("completeTwoFactorLogin - after 10 codes failed by an outage, the emailed code signs in", async () => {
    const { auth, token, emailed, storeDown } = await emailTwoFactorStep();
    const complete = () => code(auth.completeTwoFactorLogin({ token, request: REQUEST }, { code: emailed }));
    const back = storeDown();
    for (let i = 0; i < 10; i++) expect(await complete()).toBe("DATABASE_FAILURE");
    back();
    expect(await complete()).toBe("OK");
  });

  it("checkCounted - a failure after a code was already evaluated keeps the count; one before gives it back", async () => {
    const { stores, clock } = setup();
    const events = createSecurityEvents({ onEvent: undefined, logger: silentLogger, clock });
    const deps = { limits: createLimits(LIMITS, stores.cooldowns, events), events };
    const failing = async () => {
      throw new Error("store gone");
    };
    for (let i = 0; i < 20; i++)
      expect(await outcome(checkCounted(deps, "before", REQUEST, failing, () => false))).toBe("thrown");
    expect(await code(checkCounted(deps, "before", REQUEST, async () => true))).toBe("OK");
    for (let i = 0; i < 5; i++)
      expect(await outcome(checkCounted(deps, "after", REQUEST, failing, () => true))).toBe("thrown");
    expect(await code(checkCounted(deps, "after", REQUEST, async () => true))).toBe("TWO_FACTOR_THROTTLED");
  });

  it("stepUp - 20 step-ups failed by the hasher count nothing; 5 concurrent ones neither: the budget is whole", async () => {
    const { auth, hasher } = setup();
    await auth.register({}, { email: "ada@example.test", password: PASSWORD });
    const session = await signIn(auth, { email: "ada@example.test", password: PASSWORD });
    const principal = await auth.authenticate({ token: session.accessToken });
    hasher.broken = true;
    for (let i = 0; i < 20; i++)
      expect(await outcome(auth.stepUp({ principal }, { password: WRONG }))).toBe("thrown");
    const concurrent = await Promise.all(
      Array.from({ length: 5 }, () => outcome(auth.stepUp({ principal }, { password: WRONG }))),
    );
    expect(new Set(concurrent)).toEqual(new Set(["thrown"]));
    hasher.broken = false;
    expect(await code(auth.stepUp({ principal }, { password: PASSWORD }))).toBe("OK");
    const codes: string[] = [];
    for (let i = 0; i < 6; i++) codes.push(await code(auth.stepUp({ principal }, { password: WRONG })));
    expect(codes).toEqual([...Array(5).fill("INVALID_CREDENTIALS"), "LOGIN_THROTTLED"]);
  });
});
