import { describe, expect, it } from "vitest";
import type { SecurityEvent } from "../events.js";
import type { PasswordHasher } from "../ports/password-hasher.js";
import { code, createTestAuth, EMAIL_TWO_FACTOR, fastHasher, PASSWORD, signIn } from "../test-support.js";

// docs/limits.md, "Known browsers": a login from a browser whose device token names the account
// counts in the budget of that account and browser. The IP is a public one, so the per-IP budget
// counts too.
const ADA = "ada@example.test";
const WRONG = "not the right password at all";
const down = () => Promise.reject(new Error("connect ECONNREFUSED 127.0.0.1:5432"));

/** A hasher that counts its checks and can be made to fail before it evaluates anything. */
function countingHasher() {
  const base = fastHasher();
  const state = { broken: false, verifies: 0 };
  const hasher: PasswordHasher = {
    hash: (password) => base.hash(password),
    verify: (hash, password) => {
      if (state.broken) return Promise.reject(new Error("hasher pool gone"));
      state.verifies += 1;
      return base.verify(hash, password);
    },
    needsRehash: (hash) => base.needsRehash(hash),
  };
  return { hasher, state };
}

/** An auth with Ada registered from a browser: its device token, the hasher's state and the events. */
async function setup() {
  const { hasher, state } = countingHasher();
  const events: SecurityEvent[] = [];
  const env = createTestAuth({ passwordHasher: hasher, onEvent: (event) => events.push(event) });
  const { deviceToken } = await env.auth.register({}, { email: ADA, password: PASSWORD });
  const request = { ip: "203.0.113.7", deviceToken };
  return { ...env, hasher: state, events, request };
}

const attempts = (auth: Awaited<ReturnType<typeof setup>>["auth"], n: number, request: object) =>
  Promise.all(Array.from({ length: n }, () => code(signIn(auth, { email: ADA, password: WRONG }, request))));

describe("known browsers", () => {
  it("login - a known browser's wrong passwords count in its own budget: locked after 5, with a login.throttled event (reason device); the address is untouched", async () => {
    const { auth, events, request } = await setup();
    const codes = [];
    for (let i = 0; i < 6; i++)
      codes.push(await code(signIn(auth, { email: ADA, password: WRONG }, request)));
    expect(codes).toEqual([...Array(5).fill("INVALID_CREDENTIALS"), "LOGIN_THROTTLED"]);
    expect(events.filter((event) => event.type === "login.throttled")).toEqual([
      expect.objectContaining({ reason: "device", userId: expect.any(String) }),
    ]);
    expect(await code(signIn(auth, { email: ADA, password: PASSWORD }, request))).toBe("LOGIN_THROTTLED");
    expect(await code(signIn(auth, { email: ADA, password: PASSWORD }, { ip: request.ip }))).toBe("OK");
  });

  it("login - 20 concurrent wrong passwords from a known browser check no more than its budget", async () => {
    const { auth, hasher, request } = await setup();
    const before = hasher.verifies;
    const codes = await attempts(auth, 20, request);
    const checked = codes.filter((c) => c === "INVALID_CREDENTIALS").length;
    expect(checked).toBeLessThanOrEqual(5);
    expect(codes.filter((c) => c === "LOGIN_THROTTLED")).toHaveLength(20 - checked);
    expect(hasher.verifies - before).toBe(checked);
  });

  it("outage - logins from a known browser failed by the users store or the hasher are given back: its whole budget is left", async () => {
    const { auth, stores, hasher, request } = await setup();
    const findByEmail = stores.users.findByEmail.bind(stores.users);
    stores.users.findByEmail = down;
    expect(await attempts(auth, 5, request)).toEqual(Array(5).fill("DATABASE_FAILURE"));
    stores.users.findByEmail = findByEmail;
    hasher.broken = true;
    for (let i = 0; i < 5; i++)
      expect(await code(signIn(auth, { email: ADA, password: WRONG }, request))).not.toBe("OK");
    hasher.broken = false;
    const codes = [];
    for (let i = 0; i < 6; i++)
      codes.push(await code(signIn(auth, { email: ADA, password: WRONG }, request)));
    expect(codes).toEqual([...Array(5).fill("INVALID_CREDENTIALS"), "LOGIN_THROTTLED"]);
  });

  it("login - an unknown address from a browser with a device token fails like any: INVALID_CREDENTIALS, then the address's lock", async () => {
    const { auth, request } = await setup();
    const codes = [];
    for (let i = 0; i < 6; i++)
      codes.push(await code(signIn(auth, { email: "nobody@example.test", password: WRONG }, request)));
    expect(codes).toEqual([...Array(5).fill("INVALID_CREDENTIALS"), "LOGIN_THROTTLED"]);
    expect(await code(signIn(auth, { email: "nobody@example.test", password: WRONG }))).toBe(
      "LOGIN_THROTTLED",
    );
  });

  it("completeTwoFactorLogin - hands back the device token naming the account (the password step hands back none): that browser is known", async () => {
    const { auth, stores, sent, request } = await setup();
    const user = await stores.users.findByEmail(ADA);
    if (!user) throw new Error("no user");
    await stores.users.update(user.id, { twoFactor: EMAIL_TWO_FACTOR });
    const login = await auth.login({ request: { ip: request.ip } }, { email: ADA, password: PASSWORD });
    if (!login.twoFactorRequired) throw new Error("expected 2FA");
    expect("deviceToken" in login).toBe(false);
    await auth.idle();
    const mailed = /(\d{6})/.exec(sent.filter((m) => m.kind === "two-factor-code").at(-1)?.text ?? "")?.[1];
    const signedIn = await auth.completeTwoFactorLogin(
      { token: login.twoFactorAuthenticationToken, request: { ip: request.ip } },
      { code: mailed },
    );
    // That browser is now known: the address's lock from elsewhere does not reach it.
    for (let i = 0; i < 6; i++)
      await code(signIn(auth, { email: ADA, password: WRONG }, { ip: "198.51.100.1" }));
    const again = await auth.login(
      { request: { ip: request.ip, deviceToken: signedIn.deviceToken } },
      { email: ADA, password: PASSWORD },
    );
    expect(again.twoFactorRequired).toBe(true);
  });
});
