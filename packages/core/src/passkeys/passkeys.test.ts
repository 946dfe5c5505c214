import { createSoftwareAuthenticator, type SoftwareAuthenticator } from "@portcullis/testing";
import { describe, expect, it } from "vitest";
import type { Auth } from "../create-auth/auth.js";
import type { SecurityEvent } from "../events.js";
import type { Principal } from "../model.js";
import { APP_ORIGIN, code, createTestAuth, EMAIL_TWO_FACTOR, PASSWORD, signIn } from "../test-support.js";

type Options = Parameters<SoftwareAuthenticator["authenticate"]>[0];

/** An auth with passkeys on, a verified account with a password, and a signed-in principal with a step-up token. */
async function setUp(options: Parameters<typeof createTestAuth>[0] = {}) {
  const events: SecurityEvent[] = [];
  const test = createTestAuth({ webauthn: {}, onEvent: (event) => events.push(event), ...options });
  const { auth } = test;
  const email = "ada@example.test";
  await auth.host.createUser({}, { email, password: PASSWORD, emailVerified: true });
  const principal = await principalOf(auth, email);
  const { stepUpToken } = (await auth.stepUp({ principal }, { password: PASSWORD })) as {
    stepUpToken: string;
  };
  const authenticator = createSoftwareAuthenticator({ origin: APP_ORIGIN });
  return { ...test, events, email, principal, stepUpToken, authenticator };
}

async function principalOf(auth: Auth, email: string): Promise<Principal> {
  const { accessToken } = await signIn(auth, { email, password: PASSWORD });
  return auth.authenticate({ token: accessToken });
}

/** Registers a passkey with the authenticator; returns its id. */
async function addPasskey(context: Awaited<ReturnType<typeof setUp>>, name?: string): Promise<string> {
  const { auth, principal, stepUpToken, authenticator } = context;
  const call = { principal, stepUpToken };
  const options = await auth.passkeys.registrationOptions(call);
  const response = authenticator.register(options as never);
  const added = await auth.passkeys.register(call, { response, ...(name ? { name } : {}) });
  return added.id;
}

/** Starts a sign-in: the options and the browser binding (the challenge cookie's value). */
async function startSignIn(auth: Auth, email?: string) {
  const start = await auth.passkeys.signInOptions({}, email ? { email } : {});
  return { options: start.options as unknown as Options, browser: start.browserBinding };
}

describe("passkeys", () => {
  it("createAuth - refuses an rpId that is not appOrigin's host or a registrable suffix of it", () => {
    const make = (webauthn: object) => () => createTestAuth({ webauthn });
    expect(make({ rpId: "example.test" })).not.toThrow();
    expect(make({ rpId: "other.test" })).toThrow(/"webauthn.rpId" must be appOrigin's host/);
    expect(make({ rpId: "test" })).toThrow(/"webauthn.rpId"/);
    expect(make({ rpId: "https://app.example.test" })).toThrow(/"webauthn.rpId"/);
  });

  it("createAuth - refuses origins without appOrigin's, off the rpId, not https, or not origins; and a missing store", () => {
    const make = (webauthn: object) => () => createTestAuth({ webauthn });
    expect(make({ origins: ["https://login.example.test"] })).toThrow(/"webauthn.origins" must include/);
    expect(make({ origins: [APP_ORIGIN, "https://evil.test"] })).toThrow(/"webauthn.origins.1"/);
    expect(make({ origins: [APP_ORIGIN, "http://app.example.test"] })).toThrow(/must be https/);
    expect(make({ origins: [`${APP_ORIGIN}/`] })).toThrow(/"webauthn.origins.0"/);
    expect(make({ rpId: "example.test", origins: [APP_ORIGIN, "https://www.example.test"] })).not.toThrow();
    expect(() =>
      createTestAuth({ webauthn: {}, appOrigin: "http://localhost:3000", email: { enabled: false } }),
    ).not.toThrow();
    expect(() =>
      createTestAuth({ webauthn: {}, appOrigin: "http://127.0.0.1:3000", email: { enabled: false } }),
    ).toThrow(/"appOrigin" must have a domain name/);
    const { stores } = createTestAuth();
    const { passkeys: _, ...withoutPasskeys } = stores;
    expect(() => createTestAuth({ webauthn: {}, stores: withoutPasskeys })).toThrow(
      /"stores.passkeys" is required/,
    );
  });

  it("passkeys - every route's use case answers NOT_FOUND when webauthn is not configured", async () => {
    const { auth } = createTestAuth();
    expect(auth.passkeys.enabled).toBe(false);
    expect(await code(auth.passkeys.signInOptions({}, {}))).toBe("NOT_FOUND");
    expect(await code(auth.passkeys.signIn({}, {}))).toBe("NOT_FOUND");
  });

  it("register, then a discoverable sign-in: complete without a second factor, the event says passkey", async () => {
    const context = await setUp();
    const { auth, stores, email, authenticator, events } = context;
    const id = await addPasskey(context, "Laptop");
    const user = await stores.users.findByEmail(email);
    await stores.users.update(user?.id as string, { twoFactor: EMAIL_TWO_FACTOR });
    const { options, browser } = await startSignIn(auth);
    expect(options.allowCredentials ?? []).toEqual([]);
    expect(options.rpId).toBe("app.example.test");
    const result = await auth.passkeys.signIn(
      { token: browser },
      { response: authenticator.authenticate(options) },
    );
    expect(result.twoFactorRequired).toBe(false);
    expect(result.user.email).toBe(email);
    expect(events.filter((e) => e.type === "login.succeeded").at(-1)?.reason).toBe("passkey");
    expect(events.some((e) => e.type === "passkey.added")).toBe(true);
    const [listed] = (await auth.passkeys.list({ principal: context.principal })).passkeys;
    expect(listed).toMatchObject({ id, name: "Laptop", transports: ["internal"], backupEligible: false });
    expect(listed?.lastUsedAt).not.toBeNull();
    expect(JSON.stringify(listed)).not.toContain((await stores.passkeys.findById(id))?.publicKey);
  });

  it("email-first - names the account's passkeys; an address without any gets stable stand-in entries", async () => {
    const context = await setUp();
    const id = await addPasskey(context);
    const known = await startSignIn(context.auth, context.email);
    expect(known.options.allowCredentials?.map((c) => c.id)).toEqual([id]);
    const unknown = await startSignIn(context.auth, "nobody@example.test");
    const again = await startSignIn(context.auth, "nobody@example.test");
    expect(unknown.options.allowCredentials?.length).toBeGreaterThan(0);
    expect(unknown.options.allowCredentials).toEqual(again.options.allowCredentials);
    const result = await context.auth.passkeys.signIn(
      { token: known.browser },
      { response: context.authenticator.authenticate(known.options) },
    );
    expect(result.user.email).toBe(context.email);
  });

  it("email-first - a passkey of another account is refused: PASSKEY_UNKNOWN", async () => {
    const context = await setUp();
    await addPasskey(context);
    await context.auth.host.createUser({}, { email: "bob@example.test", password: PASSWORD });
    const { options, browser } = await startSignIn(context.auth, "bob@example.test");
    const response = context.authenticator.authenticate(options, {
      credentialId: context.authenticator.credentialIds[0] as string,
    });
    expect(await code(context.auth.passkeys.signIn({ token: browser }, { response }))).toBe(
      "PASSKEY_UNKNOWN",
    );
  });

  describe("refusals, each with its code", () => {
    const refused = async (
      tweak: (context: Awaited<ReturnType<typeof setUp>>, options: Options) => Promise<unknown> | unknown,
    ) => {
      const context = await setUp();
      await addPasskey(context);
      const { options, browser } = await startSignIn(context.auth);
      const response = await tweak(context, options);
      return code(context.auth.passkeys.signIn({ token: browser }, { response }));
    };
    it("sign-in - a wrong origin: PASSKEY_VERIFICATION_FAILED", async () => {
      expect(await refused((c, o) => c.authenticator.authenticate(o, { origin: "https://evil.test" }))).toBe(
        "PASSKEY_VERIFICATION_FAILED",
      );
    });
    it("sign-in - a wrong RP ID: PASSKEY_VERIFICATION_FAILED", async () => {
      expect(await refused((c, o) => c.authenticator.authenticate(o, { rpId: "evil.test" }))).toBe(
        "PASSKEY_VERIFICATION_FAILED",
      );
    });
    it("sign-in - user verification missing: PASSKEY_VERIFICATION_FAILED", async () => {
      expect(await refused((c, o) => c.authenticator.authenticate(o, { userVerified: false }))).toBe(
        "PASSKEY_VERIFICATION_FAILED",
      );
    });
    it("sign-in - a counter going backwards: PASSKEY_VERIFICATION_FAILED", async () => {
      const context = await setUp();
      await addPasskey(context);
      const first = await startSignIn(context.auth);
      await context.auth.passkeys.signIn(
        { token: first.browser },
        { response: context.authenticator.authenticate(first.options, { counter: 7 }) },
      );
      const second = await startSignIn(context.auth);
      const response = context.authenticator.authenticate(second.options, { counter: 3 });
      expect(await code(context.auth.passkeys.signIn({ token: second.browser }, { response }))).toBe(
        "PASSKEY_VERIFICATION_FAILED",
      );
      expect(context.events.filter((e) => e.type === "login.failed").at(-1)?.reason).toBe("passkey:counter");
    });
    it("sign-in - an unknown credential: PASSKEY_UNKNOWN", async () => {
      expect(
        await refused(async (_, o) => {
          const stranger = createSoftwareAuthenticator({ origin: APP_ORIGIN });
          stranger.register({
            challenge: "x",
            rp: { id: "app.example.test", name: "x" },
            user: { id: "dQ", name: "x" },
          });
          return stranger.authenticate(o);
        }),
      ).toBe("PASSKEY_UNKNOWN");
    });
    it("sign-in - a replayed challenge: PASSKEY_CHALLENGE_INVALID", async () => {
      const context = await setUp();
      await addPasskey(context);
      const { options, browser } = await startSignIn(context.auth);
      const response = context.authenticator.authenticate(options);
      expect(await code(context.auth.passkeys.signIn({ token: browser }, { response }))).toBe("OK");
      expect(await code(context.auth.passkeys.signIn({ token: browser }, { response }))).toBe(
        "PASSKEY_CHALLENGE_INVALID",
      );
    });
    it("sign-in - a challenge from another browser: PASSKEY_CHALLENGE_INVALID", async () => {
      const context = await setUp();
      await addPasskey(context);
      const theirs = await startSignIn(context.auth);
      const mine = await startSignIn(context.auth);
      const response = context.authenticator.authenticate(theirs.options);
      expect(await code(context.auth.passkeys.signIn({ token: mine.browser }, { response }))).toBe(
        "PASSKEY_CHALLENGE_INVALID",
      );
      expect(await code(context.auth.passkeys.signIn({}, { response }))).toBe("PASSKEY_CHALLENGE_INVALID");
    });
    it("sign-in - an expired challenge (5 minutes): PASSKEY_CHALLENGE_EXPIRED; just before, it works", async () => {
      const context = await setUp();
      await addPasskey(context);
      const late = await startSignIn(context.auth);
      context.clock.advance(5 * 60 * 1000 - 1000);
      const inTime = await startSignIn(context.auth);
      const ok = context.authenticator.authenticate(late.options);
      expect(await code(context.auth.passkeys.signIn({ token: late.browser }, { response: ok }))).toBe("OK");
      context.clock.advance(5 * 60 * 1000);
      const response = context.authenticator.authenticate(inTime.options);
      expect(await code(context.auth.passkeys.signIn({ token: inTime.browser }, { response }))).toBe(
        "PASSKEY_CHALLENGE_EXPIRED",
      );
    });
    it("register - a wrong origin or RP ID, or no user verification: PASSKEY_VERIFICATION_FAILED, nothing stored", async () => {
      const context = await setUp();
      const call = { principal: context.principal, stepUpToken: context.stepUpToken };
      for (const tweak of [{ origin: "https://evil.test" }, { rpId: "evil.test" }, { userVerified: false }]) {
        const options = await context.auth.passkeys.registrationOptions(call);
        const response = context.authenticator.register(options as never, tweak);
        expect(await code(context.auth.passkeys.register(call, { response }))).toBe(
          "PASSKEY_VERIFICATION_FAILED",
        );
      }
      expect(await context.stores.passkeys.listByUser(context.principal.userId)).toEqual([]);
      expect(context.events.filter((e) => e.type === "passkey.failed").map((e) => e.reason)).toEqual([
        "passkey:origin",
        "passkey:rp_id",
        "passkey:user_verification",
      ]);
    });
  });

  it("sign-in - a synced passkey (counter 0) signs in again and again", async () => {
    const context = await setUp();
    const synced = createSoftwareAuthenticator({ origin: APP_ORIGIN, synced: true });
    const call = { principal: context.principal, stepUpToken: context.stepUpToken };
    const options = await context.auth.passkeys.registrationOptions(call);
    await context.auth.passkeys.register(call, { response: synced.register(options as never) });
    for (let i = 0; i < 3; i++) {
      const { options: get, browser } = await startSignIn(context.auth);
      expect(
        await code(context.auth.passkeys.signIn({ token: browser }, { response: synced.authenticate(get) })),
      ).toBe("OK");
    }
    const [listed] = (await context.auth.passkeys.list({ principal: context.principal })).passkeys;
    expect(listed).toMatchObject({ backupEligible: true, backedUp: true });
  });

  it("sign-in - 20 concurrent verifications of one challenge: exactly one signs in", async () => {
    const context = await setUp();
    await addPasskey(context);
    const { options, browser } = await startSignIn(context.auth);
    const responses = Array.from({ length: 20 }, () =>
      context.authenticator.authenticate(options, { counter: 5 }),
    );
    const codes = await Promise.all(
      responses.map((response) => code(context.auth.passkeys.signIn({ token: browser }, { response }))),
    );
    expect(codes.filter((c) => c === "OK")).toHaveLength(1);
    expect(codes.filter((c) => c === "PASSKEY_CHALLENGE_INVALID")).toHaveLength(19);
  });

  it("step-up - a passkey of the user gives a step-up token that changes settings; another user's is refused", async () => {
    const context = await setUp();
    const id = await addPasskey(context);
    const { auth, principal, authenticator } = context;
    const options = (await auth.passkeys.stepUpOptions({ principal })) as unknown as Options;
    expect(options.allowCredentials?.map((c) => c.id)).toEqual([id]);
    const { stepUpToken } = await auth.passkeys.stepUp(
      { principal },
      { response: authenticator.authenticate(options) },
    );
    const renamed = await auth.passkeys.rename({ principal, stepUpToken }, { id, body: { name: "Phone" } });
    expect(renamed.name).toBe("Phone");
    await auth.host.createUser({}, { email: "bob@example.test", password: PASSWORD });
    const bob = await principalOf(auth, "bob@example.test");
    const bobs = (await auth.passkeys.stepUpOptions({ principal: bob })) as unknown as Options;
    const response = authenticator.authenticate(bobs, { credentialId: id });
    expect(await code(auth.passkeys.stepUp({ principal: bob }, { response }))).toBe("PASSKEY_UNKNOWN");
    const replay = authenticator.authenticate(options);
    expect(await code(auth.passkeys.stepUp({ principal }, { response: replay }))).toBe(
      "PASSKEY_CHALLENGE_INVALID",
    );
  });

  it("register - a challenge of another session is refused: PASSKEY_CHALLENGE_INVALID", async () => {
    const context = await setUp();
    const other = await principalOf(context.auth, context.email);
    const { stepUpToken } = (await context.auth.stepUp({ principal: other }, { password: PASSWORD })) as {
      stepUpToken: string;
    };
    const options = await context.auth.passkeys.registrationOptions({ principal: other, stepUpToken });
    const response = context.authenticator.register(options as never);
    const call = { principal: context.principal, stepUpToken: context.stepUpToken };
    expect(await code(context.auth.passkeys.register(call, { response }))).toBe("PASSKEY_CHALLENGE_INVALID");
    expect(await code(context.auth.passkeys.registrationOptions({ principal: context.principal }))).toBe(
      "STEP_UP_REQUIRED",
    );
  });

  it("delete - the last way to sign in stays: LAST_SIGN_IN_METHOD; with a password it goes, also 20 at once", async () => {
    const context = await setUp();
    const { auth, stores, principal, stepUpToken } = context;
    const ids = [await addPasskey(context), await addPasskey(context), await addPasskey(context)];
    await stores.users.update(principal.userId, { passwordHash: null });
    const call = { principal, stepUpToken };
    const codes = await Promise.all(
      Array.from({ length: 20 }, (_, i) => code(auth.passkeys.delete(call, ids[i % 3] as string))),
    );
    expect(codes.filter((c) => c === "OK")).toHaveLength(2);
    expect(codes).toContain("LAST_SIGN_IN_METHOD");
    const [left] = await stores.passkeys.listByUser(principal.userId);
    expect(await code(auth.passkeys.delete(call, left?.id as string))).toBe("LAST_SIGN_IN_METHOD");
    expect(await code(auth.passkeys.delete(call, "AAAA"))).toBe("NOT_FOUND");
    await stores.users.update(principal.userId, { identityProviders: ["github"] });
    expect(await code(auth.passkeys.delete(call, left?.id as string))).toBe("OK");
  });

  it("identity providers - a provider is no longer the last method when a passkey is left", async () => {
    const context = await setUp();
    const { auth, stores, principal, stepUpToken } = context;
    await addPasskey(context);
    await stores.users.update(principal.userId, { passwordHash: null, identityProviders: ["github"] });
    expect(await code(auth.identityProviders.unlink({ principal, stepUpToken }, "github"))).toBe("OK");
  });

  it("admin.deleteUser - the user's passkeys go with the account", async () => {
    const context = await setUp();
    const id = await addPasskey(context);
    await context.auth.host.deleteUser({}, context.principal.userId);
    expect(await context.stores.passkeys.findById(id)).toBeNull();
  });
});

describe("passkeys - failed sign-ins per IP", () => {
  const IP = "203.0.113.7";
  const budget = { ipLimits: { failedLogins: { max: 5, windowSeconds: 900 } } };

  /** One sign-in from `ip`: its own challenge, answered by the authenticator (tweaked to fail when asked). */
  const signInFrom = async (context: Awaited<ReturnType<typeof setUp>>, ip: string, fail: boolean) => {
    const { options, browser } = await startSignIn(context.auth);
    const response = context.authenticator.authenticate(options, fail ? { origin: "https://evil.test" } : {});
    return code(context.auth.passkeys.signIn({ token: browser, request: { ip } }, { response }));
  };

  it("sign-in - 20 failures at once with a budget of 5: 5 are checked, 15 get LOGIN_THROTTLED; then the right passkey too, another IP not", async () => {
    const context = await setUp(budget);
    await addPasskey(context);
    const codes = await Promise.all(Array.from({ length: 20 }, () => signInFrom(context, IP, true)));
    expect(codes.filter((c) => c === "PASSKEY_VERIFICATION_FAILED")).toHaveLength(5);
    expect(codes.filter((c) => c === "LOGIN_THROTTLED")).toHaveLength(15);
    const checked = context.events.filter(
      (e) => e.type === "login.failed" && e.reason?.startsWith("passkey:"),
    );
    expect(checked).toHaveLength(5);
    expect(context.events.filter((e) => e.type === "ip.limited" && e.ip === IP)).toHaveLength(15);
    // Counted before the check: the right passkey is refused as well, and so is a password.
    expect(await signInFrom(context, IP, false)).toBe("LOGIN_THROTTLED");
    expect(
      await code(context.auth.login({ request: { ip: IP } }, { email: context.email, password: PASSWORD })),
    ).toBe("LOGIN_THROTTLED");
    expect(await signInFrom(context, "198.51.100.9", false)).toBe("OK");
    context.clock.advance(900_000);
    expect(await signInFrom(context, IP, false)).toBe("OK");
  });

  it("sign-in - a verified passkey gives its attempt back: 10 sign-ins in a budget of 5, then 5 failures still checked", async () => {
    const context = await setUp(budget);
    await addPasskey(context);
    for (let i = 0; i < 10; i += 1) expect(await signInFrom(context, IP, false)).toBe("OK");
    const codes = [];
    for (let i = 0; i < 6; i += 1) codes.push(await signInFrom(context, IP, true));
    expect(codes).toEqual([...Array(5).fill("PASSKEY_VERIFICATION_FAILED"), "LOGIN_THROTTLED"]);
  });

  it("sign-in - a loopback client is not limited per IP (as for passwords)", async () => {
    const context = await setUp(budget);
    await addPasskey(context);
    for (let i = 0; i < 8; i += 1)
      expect(await signInFrom(context, "127.0.0.1", true)).toBe("PASSKEY_VERIFICATION_FAILED");
  });
});

describe("passkeys - sign-ins started per IP", () => {
  const IP = "203.0.113.8";
  const budget = { ipLimits: { passkeySignInStarts: { max: 5, windowSeconds: 900 } } };
  const startFrom = (auth: Auth, ip: string, input: object = {}) =>
    code(auth.passkeys.signInOptions({ request: { ip } }, input));

  it("signInOptions - 20 starts at once with a budget of 5: 5 challenges, 15 RATE_LIMITED with an ip.limited event; another IP and loopback go on; the window's end lets it start again", async () => {
    const context = await setUp(budget);
    const codes = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        startFrom(context.auth, IP, i % 2 ? { email: context.email } : {}),
      ),
    );
    expect(codes.filter((c) => c === "OK")).toHaveLength(5);
    expect(codes.filter((c) => c === "RATE_LIMITED")).toHaveLength(15);
    expect(context.events.filter((e) => e.type === "ip.limited" && e.ip === IP)).toHaveLength(15);
    expect(await startFrom(context.auth, "198.51.100.9")).toBe("OK");
    for (let i = 0; i < 8; i += 1) expect(await startFrom(context.auth, "127.0.0.1")).toBe("OK");
    context.clock.advance(900_000);
    expect(await startFrom(context.auth, IP)).toBe("OK");
  });
});
