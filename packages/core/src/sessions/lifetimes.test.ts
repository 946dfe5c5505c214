import { describe, expect, it } from "vitest";
import type { SecurityEvent } from "../events.js";
import { createHttpHandler } from "../http/handler.js";
import { accessTokenExpiresAt } from "../http/token-expiry.js";
import { parseAuthOptions } from "../options/options.js";
import type { SessionStore } from "../ports/session-store.js";
import { code, createTestAuth, EMAIL_TWO_FACTOR, PASSWORD, signIn, TEST_SECRET } from "../test-support.js";

const IDLE_MS = 60_000;
const LIFETIME_MS = 300_000;

/** An auth with a 60 s idle timeout and a 5 min lifetime on a fake clock, and a signed-up user. */
async function setup(overrides: { sessions?: (store: SessionStore) => SessionStore } = {}) {
  const events: SecurityEvent[] = [];
  const base = createTestAuth({
    email: { enabled: false },
    idleTimeoutSeconds: IDLE_MS / 1000,
    absoluteLifetimeSeconds: LIFETIME_MS / 1000,
    onEvent: (event) => void events.push(event),
  });
  let { auth } = base;
  if (overrides.sessions) {
    ({ auth } = createTestAuth({
      email: { enabled: false },
      idleTimeoutSeconds: IDLE_MS / 1000,
      absoluteLifetimeSeconds: LIFETIME_MS / 1000,
      onEvent: (event) => void events.push(event),
      stores: { ...base.stores, sessions: overrides.sessions(base.stores.sessions) },
      clock: base.clock,
    }));
  }
  await auth.register({}, { email: "ada@example.test", password: PASSWORD });
  const login = () => signIn(auth, { email: "ada@example.test", password: PASSWORD });
  const refresh = (token: string) => auth.refresh({ token }, undefined);
  const me = (token: string) => code(auth.authenticate({ token }));
  return { ...base, auth, events, login, refresh, me };
}

describe("session lifetimes", () => {
  it("refresh - within the idle timeout it works and restarts it; 1 ms past it, SESSION_EXPIRED and the session ended", async () => {
    const { clock, stores, events, login, refresh, me } = await setup();
    const signedIn = await login();
    clock.advance(IDLE_MS);
    const first = await refresh(signedIn.refreshToken);
    clock.advance(IDLE_MS);
    const second = await refresh(first.refreshToken);
    clock.advance(IDLE_MS + 1);
    expect(await code(refresh(second.refreshToken))).toBe("SESSION_EXPIRED");
    expect(await stores.sessions.getSession(signedIn.sessionId)).toBeNull();
    expect(await me(second.accessToken)).toBe("ACCESS_TOKEN_INVALID");
    expect(await code(refresh(second.refreshToken))).toBe("REFRESH_TOKEN_INVALID");
    expect(events.filter((event) => event.type === "session.revoked")).toMatchObject([
      { sessionId: signedIn.sessionId, reason: "expired" },
    ]);
  });

  it("refresh - the absolute lifetime ends a session refreshed every 50 s", async () => {
    const { clock, login, refresh } = await setup();
    let tokens = await login();
    for (let elapsed = 50_000; elapsed <= LIFETIME_MS; elapsed += 50_000) {
      clock.advance(50_000);
      tokens = { ...tokens, ...(await refresh(tokens.refreshToken)) };
    }
    clock.advance(1);
    expect(await code(refresh(tokens.refreshToken))).toBe("SESSION_EXPIRED");
  });

  it("authenticate - an access token stops working at the session's idle end, before its own 900 s", async () => {
    const { clock, login, me } = await setup();
    const signedIn = await login();
    clock.advance(IDLE_MS - 1);
    expect(await me(signedIn.accessToken)).toBe("OK");
    clock.advance(2);
    expect(await me(signedIn.accessToken)).toBe("ACCESS_TOKEN_INVALID");
  });

  it("authenticate - an access token issued near the absolute end stops working at it", async () => {
    const { clock, login, refresh, me } = await setup();
    let tokens = await login();
    for (let i = 0; i < 5; i++) {
      clock.advance(50_000);
      tokens = { ...tokens, ...(await refresh(tokens.refreshToken)) };
    }
    clock.advance(40_000);
    const last = await refresh(tokens.refreshToken);
    clock.advance(9_999);
    expect(await me(last.accessToken)).toBe("OK");
    clock.advance(2);
    expect(await me(last.accessToken)).toBe("ACCESS_TOKEN_INVALID");
  });

  it("login and refresh - the access token's exp (and accessTokenExpiresAt) is the earliest of its lifetime, the idle end and the absolute end", async () => {
    const { clock, login, refresh } = await setup();
    /** The token's `exp` in ms, as the routes answer it (`accessTokenExpiresAt`). */
    const expiry = (token: string) => Date.parse(accessTokenExpiresAt(token) ?? "");
    const start = clock.now();
    // Signed in: the idle end (60 s) comes before the token's own 900 s.
    let tokens = await login();
    expect(expiry(tokens.accessToken)).toBe(start + IDLE_MS);
    // Each refresh restarts the idle timeout: its end again.
    for (let i = 1; i <= 4; i++) {
      clock.advance(50_000);
      tokens = { ...tokens, ...(await refresh(tokens.refreshToken)) };
      expect(expiry(tokens.accessToken)).toBe(start + i * 50_000 + IDLE_MS);
    }
    // 50 s before the absolute end (5 min): the absolute end, not the idle end 10 s after it.
    clock.advance(50_000);
    tokens = { ...tokens, ...(await refresh(tokens.refreshToken)) };
    expect(expiry(tokens.accessToken)).toBe(start + LIFETIME_MS);
    // Where the token's own lifetime is the shortest, it is that.
    const short = createTestAuth({
      email: { enabled: false },
      accessTokenTtlSeconds: 30,
      idleTimeoutSeconds: IDLE_MS / 1000,
      absoluteLifetimeSeconds: LIFETIME_MS / 1000,
    });
    await short.auth.register({}, { email: "ada@example.test", password: PASSWORD });
    const shortStart = short.clock.now();
    const signedIn = await signIn(short.auth, { email: "ada@example.test", password: PASSWORD });
    expect(expiry(signedIn.accessToken)).toBe(shortStart + 30_000);
  });

  it("sessions.list - leaves out a session past its idle timeout, before any refresh ends it", async () => {
    const { auth, clock, login, refresh } = await setup();
    const idle = await login();
    clock.advance(IDLE_MS / 2);
    const active = await login();
    clock.advance(IDLE_MS / 2 + 1);
    const principal = await auth.authenticate({ token: active.accessToken });
    const listed = await auth.sessions.list({ principal });
    expect(listed.map((session) => session.id)).toEqual([active.sessionId]);
    expect(await code(refresh(idle.refreshToken))).toBe("SESSION_EXPIRED");
  });

  it("refresh - the store keeps an ended session one idle timeout past the absolute end, then it reads as invalid", async () => {
    const { clock, stores, login, refresh } = await setup();
    let tokens = await login();
    for (let i = 0; i < 5; i++) {
      clock.advance(50_000);
      tokens = { ...tokens, ...(await refresh(tokens.refreshToken)) };
    }
    clock.advance(LIFETIME_MS - 250_000 + IDLE_MS - 1);
    expect(await stores.sessions.getSession(tokens.sessionId)).not.toBeNull();
    clock.advance(1);
    expect(await stores.sessions.getSession(tokens.sessionId)).toBeNull();
    expect(await code(refresh(tokens.refreshToken))).toBe("REFRESH_TOKEN_INVALID");
  });

  it("refresh - 20 concurrent refreshes at the idle boundary all succeed with one successor; 1 ms later all fail", async () => {
    const { clock, login, refresh, me } = await setup();
    const signedIn = await login();
    clock.advance(IDLE_MS);
    const results = await Promise.all(Array.from({ length: 20 }, () => refresh(signedIn.refreshToken)));
    expect(new Set(results.map((result) => result.refreshToken)).size).toBe(1);
    for (const result of results) expect(await me(result.accessToken)).toBe("OK");
    const successor = results[0]?.refreshToken ?? "";
    clock.advance(IDLE_MS + 1);
    const codes = await Promise.all(Array.from({ length: 20 }, () => code(refresh(successor))));
    expect(codes.filter((c) => c === "SESSION_EXPIRED")).toHaveLength(1);
    expect(codes.filter((c) => c !== "SESSION_EXPIRED")).toEqual(Array(19).fill("REFRESH_TOKEN_INVALID"));
  });

  it("refresh - a session store that ignores the limits: the core ends the expired session itself", async () => {
    const { clock, login, refresh } = await setup({
      sessions: (store) => ({
        ...store,
        createSessionId: undefined,
        rotateRefreshToken: (id, hash, next, ttl, interval) =>
          store.rotateRefreshToken(id, hash, next, ttl, interval),
      }),
    });
    const signedIn = await login();
    clock.advance(IDLE_MS + 1_001);
    expect(await code(refresh(signedIn.refreshToken))).toBe("SESSION_EXPIRED");
    expect(await code(refresh(signedIn.refreshToken))).toBe("REFRESH_TOKEN_INVALID");
  });
});

describe("remember me", () => {
  it("login - rememberMe false is kept on the session and every refresh reports it; the default is true", async () => {
    const { auth, stores, login } = await setup();
    const remembered = await login();
    expect(remembered.rememberMe).toBe(true);
    const once = await signIn(auth, { email: "ada@example.test", password: PASSWORD, rememberMe: false });
    expect(once.rememberMe).toBe(false);
    expect((await stores.sessions.getSession(once.sessionId))?.rememberMe).toBe(false);
    const refreshed = await auth.refresh({ token: once.refreshToken }, undefined);
    expect(refreshed.rememberMe).toBe(false);
    expect((await auth.refresh({ token: remembered.refreshToken }, undefined)).rememberMe).toBe(true);
  });

  it("completeTwoFactorLogin - the password step's rememberMe false carries through the 2FA token; the code step may say otherwise", async () => {
    const { auth, stores, sent, clock } = createTestAuth();
    await auth.register({}, { email: "eve@example.test", password: PASSWORD });
    const user = await stores.users.findByEmail("eve@example.test");
    await stores.users.update(user?.id ?? "", { emailVerified: true, twoFactor: EMAIL_TWO_FACTOR });
    const step = async (rememberMe: boolean) => {
      const login = await auth.login({}, { email: "eve@example.test", password: PASSWORD, rememberMe });
      if (!login.twoFactorRequired) throw new Error("expected 2FA");
      const emailed = sent.at(-1)?.text.match(/\b\d{6}\b/)?.[0] ?? "";
      return { token: login.twoFactorAuthenticationToken, emailed };
    };
    const first = await step(false);
    const signedIn = await auth.completeTwoFactorLogin({ token: first.token }, { code: first.emailed });
    expect(signedIn.rememberMe).toBe(false);
    clock.advance(61_000);
    const second = await step(false);
    const overruled = await auth.completeTwoFactorLogin(
      { token: second.token },
      { code: second.emailed, rememberMe: true },
    );
    expect(overruled.rememberMe).toBe(true);
  });
});

describe("remember me, host API", () => {
  it("sessions.create - rememberMe false: the handler's sessionCookies have no Max-Age; by default they have one", async () => {
    const { auth, stores } = createTestAuth({ email: { enabled: false } });
    await auth.register({}, { email: "host@example.test", password: PASSWORD });
    const user = await stores.users.findByEmail("host@example.test");
    const handler = createHttpHandler(auth);
    const cookiesOf = async (rememberMe?: boolean) => {
      const started = await auth.sessions.create({}, { userId: user?.id ?? "", rememberMe });
      expect(started.rememberMe).toBe(rememberMe !== false);
      return handler.sessionCookies(started).filter((cookie) => /^(access|refresh)_token=[^;]/.test(cookie));
    };
    const browserSession = await cookiesOf(false);
    expect(browserSession).toHaveLength(2);
    for (const cookie of browserSession) expect(cookie).not.toMatch(/Max-Age|Expires/i);
    for (const cookie of await cookiesOf()) expect(cookie).toMatch(/Max-Age=\d+/);
  });
});

describe("lifetime options", () => {
  const base = () => ({
    secret: TEST_SECRET,
    email: { enabled: false as const },
    stores: createTestAuth().stores,
  });

  it("parseAuthOptions - defaults: 7 days idle, 30 days absolute", () => {
    const options = parseAuthOptions(base());
    expect(options.idleTimeoutSeconds).toBe(7 * 24 * 3600);
    expect(options.absoluteLifetimeSeconds).toBe(30 * 24 * 3600);
  });

  it("parseAuthOptions - an idle timeout longer than the lifetime, 0, or more than 400 days is refused", () => {
    expect(() => parseAuthOptions({ ...base(), absoluteLifetimeSeconds: 86_400 })).toThrow(
      /idleTimeoutSeconds/,
    );
    expect(() => parseAuthOptions({ ...base(), idleTimeoutSeconds: 0 })).toThrow(/idleTimeoutSeconds/);
    expect(() => parseAuthOptions({ ...base(), absoluteLifetimeSeconds: 401 * 86_400 })).toThrow(
      /absoluteLifetimeSeconds/,
    );
    expect(
      parseAuthOptions({ ...base(), idleTimeoutSeconds: 3600, absoluteLifetimeSeconds: 86_400 }),
    ).toMatchObject({ idleTimeoutSeconds: 3600, absoluteLifetimeSeconds: 86_400 });
  });
});
