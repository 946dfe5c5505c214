import { expectOnlyPrefixes, type FakeRangeServer, sha1Hex, startFakeRangeServer } from "@portcullis/testing";
import { afterEach, describe, expect, it } from "vitest";
import { ValidationError } from "../errors.js";
import type { AuthOptions } from "../options/options.js";
import { code, createLineLogger, createTestAuth, EMAIL_TWO_FACTOR, signIn } from "../test-support.js";
import { MAX_RANGE_ANSWER_BYTES, parseRange } from "./breached-passwords.js";

/** In the fake corpus. */
const BREACHED = "breached passphrase 2019";
/** In the fake corpus with count 0 only (as a padding line would be): not a match. */
const PADDED = "padded passphrase 2020";
const CLEAN = "a clean passphrase nobody leaked";

const servers: FakeRangeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.stop()));
});

async function fakeApi(): Promise<FakeRangeServer> {
  const server = await startFakeRangeServer([BREACHED]);
  servers.push(server);
  return server;
}

async function setup(breached: Partial<NonNullable<AuthOptions["breachedPasswords"]>> = {}) {
  const api = await fakeApi();
  const { logger, lines } = createLineLogger();
  const test = createTestAuth({
    email: { enabled: false },
    logger,
    // Long enough for a loaded machine: a range answer late past it would be allowed (fail-open)
    // and read as a miss. The slow-API test sets its own.
    breachedPasswords: { rangeUrl: api.rangeUrl, timeoutMs: 3_000, ...breached },
  });
  return { ...test, api, lines };
}

/** What a settled call threw, as its code and the field errors' paths and rules. */
async function refusal(promise: Promise<unknown>) {
  try {
    await promise;
    return "OK";
  } catch (error) {
    const issues = error instanceof ValidationError ? error.issues.map((i) => `${i.path}:${i.rule}`) : [];
    return [(error as { code?: string }).code, ...issues].join(" ");
  }
}

describe("breached passwords", () => {
  it("register - a password of the corpus is PASSWORD_BREACHED on the password field; others register", async () => {
    const { auth, stores, api } = await setup();
    expect(await refusal(auth.register({}, { email: "a@x.test", password: BREACHED }))).toBe(
      "PASSWORD_BREACHED password:password_breached",
    );
    expect(await stores.users.findByEmail("a@x.test")).toBeNull();
    expect(await code(auth.register({}, { email: "a@x.test", password: CLEAN }))).toBe("OK");
    expectOnlyPrefixes(api, [BREACHED, CLEAN]);
  });

  it("check - count-0 lines (padding) are not matches", async () => {
    const api = await startFakeRangeServer([PADDED], { count: 0 });
    servers.push(api);
    const { auth } = createTestAuth({
      email: { enabled: false },
      breachedPasswords: { rangeUrl: api.rangeUrl },
    });
    expect(await code(auth.register({}, { email: "p@x.test", password: PADDED }))).toBe("OK");
    expect(api.requests.map((r) => r.url)).toEqual([`/range/${sha1Hex(PADDED).slice(0, 5)}`]);
  });

  it("resetPassword and setPassword - a password of the corpus is refused and the link still works", async () => {
    const { auth, stores, api } = await setup();
    const user = await auth.host.createUser({}, { email: "b@x.test", password: CLEAN, emailVerified: true });
    expect(await refusal(auth.host.setPassword({}, { userId: user.id, password: BREACHED }))).toBe(
      "PASSWORD_BREACHED password:password_breached",
    );
    const before = (await stores.users.findByEmail("b@x.test"))?.passwordHash;
    const {
      auth: mailing,
      stores: mailStores,
      sent,
    } = createTestAuth({
      breachedPasswords: { rangeUrl: api.rangeUrl },
    });
    await mailing.host.createUser({}, { email: "c@x.test", password: CLEAN, emailVerified: true });
    await mailing.requestPasswordReset({}, { email: "c@x.test" });
    await mailing.idle();
    const token = /token=([\w-]+)/.exec(sent.at(-1)?.html ?? "")?.[1];
    expect(await refusal(mailing.resetPassword({ token }, { newPassword: BREACHED }))).toBe(
      "PASSWORD_BREACHED newPassword:password_breached",
    );
    expect(await code(mailing.resetPassword({ token }, { newPassword: "another clean passphrase" }))).toBe(
      "OK",
    );
    expect(await mailStores.users.findByEmail("c@x.test")).toMatchObject({ email: "c@x.test" });
    expect((await stores.users.findByEmail("b@x.test"))?.passwordHash).toBe(before);
    expectOnlyPrefixes(api, [BREACHED, CLEAN]);
  });

  it("account.changePassword - a password of the corpus is PASSWORD_BREACHED on newPassword; the old one still works", async () => {
    const { auth, api } = await setup();
    await auth.host.createUser({}, { email: "change@x.test", password: CLEAN, emailVerified: true });
    const login = await signIn(auth, { email: "change@x.test", password: CLEAN });
    const principal = await auth.authenticate({ token: login.accessToken });
    expect(
      await refusal(
        auth.account.changePassword({ principal }, { currentPassword: CLEAN, newPassword: BREACHED }),
      ),
    ).toBe("PASSWORD_BREACHED newPassword:password_breached");
    expect(await code(signIn(auth, { email: "change@x.test", password: CLEAN }))).toBe("OK");
    expect(
      await refusal(
        auth.account.changePassword(
          { principal },
          { currentPassword: CLEAN, newPassword: "a fresh clean passphrase" },
        ),
      ),
    ).toBe("OK");
    expectOnlyPrefixes(api, [BREACHED, "a fresh clean passphrase"]);
  });

  it("resetPassword - without a token that can be one, no range request is sent", async () => {
    const { auth, api } = await setup();
    expect(await code(auth.resetPassword({}, { newPassword: BREACHED }))).toBe(
      "PASSWORD_RESET_TOKEN_INVALID",
    );
    expect(api.requests).toEqual([]);
  });

  it("login - a password of the corpus signs in with passwordBreached: true; others without the field", async () => {
    const { auth, lines } = await setup();
    await auth.host.createUser({}, { email: "old@x.test", password: BREACHED, emailVerified: true });
    await auth.host.createUser({}, { email: "new@x.test", password: CLEAN, emailVerified: true });
    const breached = await signIn(auth, { email: "old@x.test", password: BREACHED });
    expect(breached.passwordBreached).toBe(true);
    const clean = await signIn(auth, { email: "new@x.test", password: CLEAN });
    expect("passwordBreached" in clean).toBe(false);
    expect(lines.some((line) => line.includes('"event":"login.password_breached"'))).toBe(true);
    expect(lines.join("\n")).not.toContain(BREACHED);
  });

  it("completeTwoFactorLogin - the flag of the password step carries through the 2FA token to the sign-in", async () => {
    const api = await fakeApi();
    const { auth, stores, sent } = createTestAuth({ breachedPasswords: { rangeUrl: api.rangeUrl } });
    for (const [email, password] of [
      ["tf-old@x.test", BREACHED],
      ["tf-new@x.test", CLEAN],
    ] as const) {
      const user = await auth.host.createUser({}, { email, password, emailVerified: true });
      await stores.users.update(user.id, { twoFactor: EMAIL_TWO_FACTOR });
      const step = await auth.login({}, { email, password });
      if (!step.twoFactorRequired) throw new Error("second factor expected");
      expect("passwordBreached" in step).toBe(false);
      await auth.idle();
      const mailed = /\b(\d{6})\b/.exec(sent.filter((m) => m.to === email).at(-1)?.text ?? "")?.[1];
      const signedIn = await auth.completeTwoFactorLogin(
        { token: step.twoFactorAuthenticationToken },
        { code: mailed ?? "", method: "email" },
      );
      expect(signedIn.passwordBreached === true, email).toBe(password === BREACHED);
    }
  });

  it("check - the API down: allowed (logged) by default, 503 BREACHED_PASSWORD_CHECK_FAILURE with failClosed; logins go on", async () => {
    const open = await setup();
    const closed = await setup({ failClosed: true });
    await closed.auth.host.createUser({}, { email: "d@x.test", password: BREACHED, emailVerified: true });
    await open.api.stop();
    await closed.api.stop();
    expect(await code(open.auth.register({}, { email: "e@x.test", password: BREACHED }))).toBe("OK");
    expect(open.lines.some((line) => line.includes('"event":"breached_passwords.unavailable"'))).toBe(true);
    expect(await code(closed.auth.register({}, { email: "e@x.test", password: CLEAN }))).toBe(
      "BREACHED_PASSWORD_CHECK_FAILURE",
    );
    const signedIn = await signIn(closed.auth, { email: "d@x.test", password: BREACHED });
    expect("passwordBreached" in signedIn).toBe(false);
  });

  it("check - a slow API: allowed once timeoutMs passes, refused with failClosed; an error status alike", async () => {
    const open = await setup({ timeoutMs: 200 });
    const closed = await setup({ timeoutMs: 200, failClosed: true });
    open.api.delayMs = 2000;
    closed.api.delayMs = 2000;
    const started = performance.now();
    expect(await code(open.auth.register({}, { email: "f@x.test", password: BREACHED }))).toBe("OK");
    expect(performance.now() - started).toBeLessThan(1500);
    expect(await code(closed.auth.register({}, { email: "f@x.test", password: CLEAN }))).toBe(
      "BREACHED_PASSWORD_CHECK_FAILURE",
    );
    closed.api.delayMs = 0;
    closed.api.failStatus = 500;
    expect(
      await code(closed.auth.register({}, { email: "g@x.test", password: "third clean passphrase" })),
    ).toBe("BREACHED_PASSWORD_CHECK_FAILURE");
    // A failure is not cached: the API back, the same prefix is asked again and answered.
    closed.api.failStatus = null;
    expect(
      await code(closed.auth.register({}, { email: "g@x.test", password: "third clean passphrase" })),
    ).toBe("OK");
  });

  it("check - an answer above the size cap is not read on: allowed (logged) by default, BREACHED_PASSWORD_CHECK_FAILURE with failClosed", async () => {
    const open = await setup();
    const closed = await setup({ failClosed: true });
    // About 2 MiB of padding (37 bytes a line): twice the cap, read well within the timeout.
    expect(MAX_RANGE_ANSWER_BYTES).toBe(1024 * 1024);
    const padding = Math.ceil((2 * 1024 * 1024) / 37);
    for (const streamed of [false, true]) {
      for (const api of [open.api, closed.api]) {
        api.paddingLines = padding;
        api.streamed = streamed;
      }
      const email = streamed ? "s@x.test" : "l@x.test";
      open.lines.length = 0;
      expect(await code(open.auth.register({}, { email, password: BREACHED })), `streamed ${streamed}`).toBe(
        "OK",
      );
      expect(open.lines.some((line) => line.includes('"event":"breached_passwords.unavailable"'))).toBe(true);
      expect(await code(closed.auth.register({}, { email, password: CLEAN })), `streamed ${streamed}`).toBe(
        "BREACHED_PASSWORD_CHECK_FAILURE",
      );
    }
    // An answer of a real range's size is read as before.
    closed.api.paddingLines = 1000;
    expect(await code(closed.auth.register({}, { email: "m@x.test", password: BREACHED }))).toBe(
      "PASSWORD_BREACHED",
    );
  });

  it("check - a range is cached per prefix for cacheTtlSeconds; concurrent checks share one request", async () => {
    const { auth, api, clock } = await setup({ cacheTtlSeconds: 60 });
    const attempts = Array.from({ length: 8 }, (_, i) =>
      code(auth.register({ request: { ip: `10.0.0.${i}` } }, { email: `h${i}@x.test`, password: BREACHED })),
    );
    expect(await Promise.all(attempts)).toEqual(Array(8).fill("PASSWORD_BREACHED"));
    expect(api.requests).toHaveLength(1);
    expect(await code(auth.register({}, { email: "h@x.test", password: BREACHED }))).toBe(
      "PASSWORD_BREACHED",
    );
    expect(api.requests).toHaveLength(1);
    clock.advance(61_000);
    expect(await code(auth.register({}, { email: "h@x.test", password: BREACHED }))).toBe(
      "PASSWORD_BREACHED",
    );
    expect(api.requests).toHaveLength(2);
  });

  it("parseRange - keeps suffixes with a count above 0, any case and line ending; refuses an answer without lines", () => {
    const text =
      "0018A45C4D1DEF81644B54AB7F969B88D65:3\r\n00d4f6e8fa6eecad2a3aa415eec418d38ec:0\nnot a line\n";
    expect(parseRange(text)).toBe("\n0018A45C4D1DEF81644B54AB7F969B88D65\n");
    expect(parseRange("")).toBe("\n");
    expect(() => parseRange("<html>maintenance</html>")).toThrow();
  });

  it("options - rangeUrl must be an http(s) URL without a query; off unless set", () => {
    expect(() => createTestAuth({ breachedPasswords: { rangeUrl: "ftp://x.test/range" } })).toThrow(
      /rangeUrl/,
    );
    expect(() => createTestAuth({ breachedPasswords: { rangeUrl: "https://x.test/range?k=1" } })).toThrow(
      /rangeUrl/,
    );
    expect(createTestAuth().auth.options.breachedPasswords).toBeUndefined();
    expect(
      createTestAuth({ breachedPasswords: { rangeUrl: "https://x.test/range/" } }).auth.options
        .breachedPasswords,
    ).toEqual({
      rangeUrl: "https://x.test/range",
      timeoutMs: 1500,
      failClosed: false,
      cacheEntries: 256,
      cacheTtlSeconds: 3600,
    });
  });
});
