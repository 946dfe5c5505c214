import { createHash } from "node:crypto";
import { referenceTotp } from "@portcullis/testing";
import { describe, expect, it } from "vitest";
import type { Auth } from "../create-auth/create-auth.js";
import type { RequestContext } from "../model.js";
import { NO_TWO_FACTOR } from "../ports/user-store.js";
import { code, createTestAuth, PASSWORD, signIn } from "../test-support.js";
import { createSecretBox } from "./secret-box.js";
import { matchTotp, totpCode } from "./totp.js";

const setup = () => createTestAuth({ start: Date.UTC(2026, 0, 1, 12), email: { loginAlerts: false } });

const signedIn = (auth: Auth, email: string) => signIn(auth, { email, password: PASSWORD });

/** A password login of an account with 2FA on: its 2FA token. */
async function secondFactorToken(auth: Auth, request?: RequestContext) {
  const login = await auth.login({ request }, { email: "ada@example.test", password: PASSWORD });
  if (!login.twoFactorRequired) throw new Error("expected 2FA");
  return login.twoFactorAuthenticationToken;
}

/** `completeTwoFactorLogin` with `twoFactorCode`: its error's code, or "OK". */
const completeLogin = (auth: Auth, token: string, twoFactorCode: string) =>
  code(auth.completeTwoFactorLogin({ token }, { code: twoFactorCode }));

/** Registers a user, turns TOTP on through the use cases, and returns what the test needs. */
async function withTotp(env: ReturnType<typeof setup>, email = "ada@example.test") {
  const { auth, clock, stores } = env;
  await auth.register({}, { email, password: PASSWORD });
  // 2FA needs a verified address; the verification flow itself is tested elsewhere.
  await stores.users.update((await stores.users.findByEmail(email))?.id ?? "", { emailVerified: true });
  const session = await signedIn(auth, email);
  const principal = await auth.authenticate({ token: session.accessToken });
  const stepUp = await auth.stepUp({ principal }, { password: PASSWORD });
  if (stepUp.twoFactorRequired) throw new Error("unexpected 2FA");
  const setupInfo = await auth.getTotpSetup({ principal, stepUpToken: stepUp.stepUpToken });
  const user = await auth.confirmTotpSetup(
    { principal, stepUpToken: stepUp.stepUpToken },
    {
      setupToken: setupInfo.setupToken,
      code: referenceTotp(setupInfo.secret, clock.now()),
    },
  );
  clock.advance(30_000);
  return { ...setupInfo, user, session, principal };
}

/**
 * Registers Ada (verified) and turns email 2FA on with the code mailed to her: the user it
 * answered, and `mailed`, which reads the latest code mailed.
 */
async function withEmailTwoFactor(env: ReturnType<typeof setup>) {
  const { auth, stores, sent } = env;
  await auth.register({}, { email: "ada@example.test", password: PASSWORD });
  const id = (await stores.users.findByEmail("ada@example.test"))?.id ?? "";
  await stores.users.update(id, { emailVerified: true });
  const principal = await auth.authenticate({
    token: (await signedIn(auth, "ada@example.test")).accessToken,
  });
  const step = await auth.stepUp({ principal }, { password: PASSWORD });
  if (step.twoFactorRequired) throw new Error("unexpected");
  await auth.sendTwoFactorEmailCode({ principal });
  const mailed = () =>
    /(\d{6})/.exec(sent.filter((m) => m.kind === "two-factor-code").at(-1)?.text ?? "")?.[1] ?? "";
  const enabled = await auth.enableEmailTwoFactor(
    { principal, stepUpToken: step.stepUpToken },
    { code: mailed() },
  );
  return { enabled, mailed };
}

describe("TOTP", () => {
  it("totpCode - RFC 6238 Appendix B SHA-1 vectors (last six digits) match the library and the reference", () => {
    const secret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"; // "12345678901234567890"
    const vectors: [number, string][] = [
      [59, "94287082"],
      [1111111109, "07081804"],
      [1111111111, "14050471"],
      [1234567890, "89005924"],
      [2000000000, "69279037"],
      [20000000000, "65353130"],
    ];
    for (const [seconds, expected] of vectors) {
      expect(totpCode(secret, seconds * 1000)).toBe(expected.slice(2));
      expect(referenceTotp(secret, seconds * 1000)).toBe(expected.slice(2));
    }
  });

  it("matchTotp - accepts ±1 step of drift and nothing further", () => {
    const secret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ";
    const now = 1_700_000_000_000;
    expect(matchTotp(secret, referenceTotp(secret, now - 30_000), now)).not.toBeNull();
    expect(matchTotp(secret, referenceTotp(secret, now + 30_000), now)).not.toBeNull();
    expect(matchTotp(secret, referenceTotp(secret, now - 90_000), now)).toBeNull();
  });

  it("setup - the secret has 160+ bits, is stored only encrypted, and enabling revokes other sessions", async () => {
    const env = setup();
    await env.auth.register({}, { email: "ada@example.test", password: PASSWORD });
    const other = await signedIn(env.auth, "ada@example.test");
    const { secret, otpauthUri, recoveryCodes, user, session } = await withTotp(env);
    expect(secret.replace(/=+$/, "").length * 5).toBeGreaterThanOrEqual(160);
    expect(otpauthUri).toMatch(/^otpauth:\/\/totp\/Portcullis:ada%40example\.test\?.*secret=/);
    expect(recoveryCodes).toHaveLength(10);
    expect(user).toMatchObject({ twoFactorMethods: ["totp"], preferredTwoFactorMethod: "totp" });
    const stored = await env.stores.users.findById(user.id);
    expect(stored?.twoFactor.totpSecretEncrypted).toMatch(/^v1\./);
    expect(JSON.stringify(stored)).not.toContain(secret);
    expect(JSON.stringify(stored)).not.toContain(recoveryCodes[0]);
    expect(await code(env.auth.authenticate({ token: other.accessToken }))).toBe("ACCESS_TOKEN_INVALID");
    expect(await code(env.auth.authenticate({ token: session.accessToken }))).toBe("OK");
  });

  it("login - the password step gives only a 2FA token; the code finishes it; tokens never cross over", async () => {
    const env = setup();
    const { secret } = await withTotp(env);
    const first = await env.auth.login({}, { email: "ada@example.test", password: PASSWORD });
    expect(first).toMatchObject({
      twoFactorRequired: true,
      twoFactorMethods: ["totp"],
      preferredTwoFactorMethod: "totp",
    });
    if (!first.twoFactorRequired) throw new Error("expected 2FA");
    expect(first).not.toHaveProperty("accessToken");
    const twoFactorToken = first.twoFactorAuthenticationToken;
    expect(await code(env.auth.authenticate({ token: twoFactorToken }))).toBe("ACCESS_TOKEN_INVALID");
    expect(await code(env.auth.completeTwoFactorLogin({ token: twoFactorToken }, {}))).toBe(
      "TWO_FACTOR_CODE_MISSING",
    );
    const signed = await env.auth.completeTwoFactorLogin(
      { token: twoFactorToken },
      {
        code: referenceTotp(secret, env.clock.now()),
      },
    );
    expect(await code(env.auth.authenticate({ token: signed.accessToken }))).toBe("OK");
    expect(
      await code(env.auth.completeTwoFactorLogin({ token: signed.accessToken }, { code: "123456" })),
    ).toBe("TWO_FACTOR_TOKEN_INVALID");
    expect(await code(env.auth.completeTwoFactorLogin({ token: twoFactorToken }, { code: "123456" }))).toBe(
      "TWO_FACTOR_TOKEN_INVALID",
    );
  });

  it("login - a used code is refused again, even in a new login; after 5 minutes the 2FA token is dead", async () => {
    const env = setup();
    const { secret } = await withTotp(env);
    const codeNow = referenceTotp(secret, env.clock.now());
    const a = await secondFactorToken(env.auth);
    const b = await secondFactorToken(env.auth);
    expect(await completeLogin(env.auth, a, codeNow)).toBe("OK");
    expect(await completeLogin(env.auth, b, codeNow)).toBe("WRONG_TWO_FACTOR_CODE");
    env.clock.advance(301_000);
    const later = referenceTotp(secret, env.clock.now());
    expect(await completeLogin(env.auth, b, later)).toBe("TWO_FACTOR_TOKEN_INVALID");
  });

  it("login - 20 concurrent completions with one code: exactly one session", async () => {
    const env = setup();
    const { secret } = await withTotp(env);
    const token = await secondFactorToken(env.auth);
    const totp = referenceTotp(secret, env.clock.now());
    const results = await Promise.all(Array.from({ length: 20 }, () => completeLogin(env.auth, token, totp)));
    expect(results.filter((result) => result === "OK")).toHaveLength(1);
  });

  it("recovery - a recovery code finishes a login once", async () => {
    const env = setup();
    const { recoveryCodes } = await withTotp(env);
    const start = () => secondFactorToken(env.auth);
    const recovery = recoveryCodes[3] ?? "";
    expect(
      await code(
        env.auth.recoverWithRecoveryCode({ token: await start() }, { code: recovery.toLowerCase() }),
      ),
    ).toBe("OK");
    expect(await code(env.auth.recoverWithRecoveryCode({ token: await start() }, { code: recovery }))).toBe(
      "WRONG_TWO_FACTOR_CODE",
    );
    expect(
      await code(env.auth.recoverWithRecoveryCode({ token: await start() }, { code: recoveryCodes[4] })),
    ).toBe("OK");
  });

  it("throttle - wrong codes lock the account; a new password step does not reset the count", async () => {
    const env = setup();
    const { secret } = await withTotp(env);
    for (let i = 0; i < 5; i++) {
      expect(await completeLogin(env.auth, await secondFactorToken(env.auth), "000000")).toBe(
        "WRONG_TWO_FACTOR_CODE",
      );
    }
    const token = await secondFactorToken(env.auth);
    const right = referenceTotp(secret, env.clock.now());
    const locked = await env.auth.completeTwoFactorLogin({ token }, { code: right }).catch((error) => error);
    expect(locked).toMatchObject({ code: "TWO_FACTOR_THROTTLED", remainingSeconds: 900 });
    env.clock.advance(900_000);
    expect(await completeLogin(env.auth, token, referenceTotp(secret, env.clock.now()))).toBe(
      "TWO_FACTOR_TOKEN_INVALID",
    );
    const fresh = await secondFactorToken(env.auth);
    expect(await completeLogin(env.auth, fresh, referenceTotp(secret, env.clock.now()))).toBe("OK");
  });

  it("settings - changes need a step-up token of this session; disabling TOTP with one works", async () => {
    const env = setup();
    const { secret } = await withTotp(env);
    const signed = await env.auth.completeTwoFactorLogin(
      { token: await secondFactorToken(env.auth) },
      {
        code: referenceTotp(secret, env.clock.now()),
      },
    );
    const principal = await env.auth.authenticate({ token: signed.accessToken });
    expect(await code(env.auth.disableTwoFactorMethod({ principal, stepUpToken: undefined }, "totp"))).toBe(
      "STEP_UP_REQUIRED",
    );
    expect(
      await code(env.auth.disableTwoFactorMethod({ principal, stepUpToken: signed.accessToken }, "totp")),
    ).toBe("STEP_UP_REQUIRED");
    const step = await env.auth.stepUp({ principal }, { password: PASSWORD });
    expect(step).toMatchObject({ twoFactorRequired: true });
    if (!step.twoFactorRequired) throw new Error("expected 2FA step-up");
    env.clock.advance(30_000);
    const done = await env.auth.completeTwoFactorStepUp(
      { principal, token: step.twoFactorAuthenticationToken },
      {
        code: referenceTotp(secret, env.clock.now()),
      },
    );
    const otherSession = await env.auth.authenticate({
      token: (
        await env.auth.completeTwoFactorLogin(
          { token: await secondFactorToken(env.auth) },
          {
            code: referenceTotp(secret, env.clock.now() + 30_000),
          },
        )
      ).accessToken,
    });
    expect(
      await code(
        env.auth.disableTwoFactorMethod({ principal: otherSession, stepUpToken: done.stepUpToken }, "totp"),
      ),
    ).toBe("STEP_UP_REQUIRED");
    const user = await env.auth.disableTwoFactorMethod({ principal, stepUpToken: done.stepUpToken }, "totp");
    expect(user).toMatchObject({ twoFactorMethods: [], preferredTwoFactorMethod: null });
    await env.auth.idle();
    expect(env.sent.some((message) => message.kind === "two-factor-changed")).toBe(true);
    expect(
      (await env.auth.login({}, { email: "ada@example.test", password: PASSWORD })).twoFactorRequired,
    ).toBe(false);
  });

  it("email 2FA - enabled with an emailed code; login mails a code in the request's locale; a blocked send keeps the mailed code", async () => {
    const env = setup();
    const { enabled, mailed } = await withEmailTwoFactor(env);
    expect(enabled).toMatchObject({ twoFactorMethods: ["email"] });

    env.clock.advance(61_000);
    const firstLogin = await secondFactorToken(env.auth, { locale: "de" });
    await env.auth.idle();
    expect(env.sent.filter((m) => m.kind === "two-factor-code")).toHaveLength(2);
    expect(env.sent.at(-1)?.locale).toBe("de");
    const first = mailed();
    const again = await secondFactorToken(env.auth);
    expect(env.sent.filter((m) => m.kind === "two-factor-code")).toHaveLength(2);
    expect(await code(env.auth.sendTwoFactorEmailCode({ token: again }))).toBe("EMAIL_COOLDOWN_ACTIVE");
    expect(await completeLogin(env.auth, again, first)).toBe("OK");
    expect(await completeLogin(env.auth, firstLogin, first)).toBe("WRONG_TWO_FACTOR_CODE");
  });
});

describe("2FA hardening", () => {
  it("email 2FA - the login answer says whether a code went out, and the cooldown when one held it back", async () => {
    const env = setup();
    await withEmailTwoFactor(env);
    const login = () => env.auth.login({}, { email: "ada@example.test", password: PASSWORD });

    // 20 s after the enabling code (spent): nothing is mailed, and the answer says for how long.
    env.clock.advance(20_000);
    const held = await login();
    expect(held).toMatchObject({ twoFactorRequired: true, emailCodeSent: false, emailCodeCooldown: 40 });
    expect(env.sent.filter((m) => m.kind === "two-factor-code")).toHaveLength(1);

    env.clock.advance(40_000);
    const sent = await login();
    expect(sent).toMatchObject({ twoFactorRequired: true, emailCodeSent: true, emailCodeCooldown: 60 });
    expect(env.sent.filter((m) => m.kind === "two-factor-code")).toHaveLength(2);

    // TOTP preferred: no code is to be mailed, and both fields say so.
    const totp = setup();
    await withTotp(totp, "bea@example.test");
    const totpLogin = await totp.auth.login({}, { email: "bea@example.test", password: PASSWORD });
    expect(totpLogin).toMatchObject({ emailCodeSent: false, emailCodeCooldown: null });
  });

  it("sendTwoFactorEmailCode - a 2FA token counts before a principal; a refused one falls back on the principal", async () => {
    const env = setup();
    for (const email of ["ada@example.test", "bea@example.test"]) {
      await env.auth.register({}, { email, password: PASSWORD });
      const id = (await env.stores.users.findByEmail(email))?.id ?? "";
      await env.stores.users.update(id, {
        emailVerified: true,
        twoFactor: { ...NO_TWO_FACTOR, methods: ["email"], preferredMethod: "email" },
      });
    }
    env.clock.advance(61_000);
    const ada = await env.auth.login({}, { email: "ada@example.test", password: PASSWORD });
    if (!ada.twoFactorRequired) throw new Error("unexpected");
    const adaSession = await env.auth.sessions.create(
      {},
      { userId: (await env.stores.users.findByEmail("ada@example.test"))?.id ?? "" },
    );
    const adaPrincipal = await env.auth.authenticate({ token: adaSession.accessToken });
    env.clock.advance(61_000);
    const bea = await env.auth.login({}, { email: "bea@example.test", password: PASSWORD });
    if (!bea.twoFactorRequired) throw new Error("unexpected");
    env.clock.advance(61_000);
    await env.auth.idle();
    // Ada's live principal beside Bea's login token: Bea gets the code.
    await env.auth.sendTwoFactorEmailCode({
      principal: adaPrincipal,
      token: bea.twoFactorAuthenticationToken,
    });
    await env.auth.idle();
    expect(env.sent.at(-1)?.to).toBe("bea@example.test");
    // A refused 2FA token beside a live principal: the signed-in user's code.
    await env.auth.sendTwoFactorEmailCode({ principal: adaPrincipal, token: "not-a-live-token-at-all" });
    await env.auth.idle();
    expect(env.sent.at(-1)?.to).toBe("ada@example.test");
    // Without a principal, a refused token is the answer.
    expect(await code(env.auth.sendTwoFactorEmailCode({ token: "not-a-live-token-at-all" }))).toBe(
      "TWO_FACTOR_TOKEN_INVALID",
    );
  });

  it("setup - an address never verified cannot turn 2FA on (EMAIL_NOT_VERIFIED)", async () => {
    const { auth } = setup();
    await auth.register({}, { email: "eve@example.test", password: PASSWORD });
    const principal = await auth.authenticate({
      token: (await signedIn(auth, "eve@example.test")).accessToken,
    });
    const stepUp = await auth.stepUp({ principal }, { password: PASSWORD });
    if (stepUp.twoFactorRequired) throw new Error("unexpected 2FA");
    expect(await code(auth.getTotpSetup({ principal, stepUpToken: stepUp.stepUpToken }))).toBe(
      "EMAIL_NOT_VERIFIED",
    );
    expect(await code(auth.sendTwoFactorEmailCode({ principal }))).toBe("EMAIL_NOT_VERIFIED");
    expect(
      await code(
        auth.enableEmailTwoFactor({ principal, stepUpToken: stepUp.stepUpToken }, { code: "123456" }),
      ),
    ).toBe("EMAIL_NOT_VERIFIED");
  });

  it("recovery - codes are stored as an HMAC under a key from encryptionKey, not a plain SHA-256", async () => {
    const env = setup();
    const { recoveryCodes } = await withTotp(env);
    const stored =
      (await env.stores.users.findByEmail("ada@example.test"))?.twoFactor.recoveryCodeHashes ?? [];
    const plain = recoveryCodes.map((recovery) =>
      createHash("sha256").update(recovery.replace("-", "")).digest("base64url"),
    );
    expect(stored).toHaveLength(10);
    for (const hash of plain) expect(stored).not.toContain(hash);
    expect(stored.join()).not.toMatch(new RegExp(recoveryCodes.map((c) => c.replace("-", "")).join("|")));
  });

  it("setup - users.update fails on confirm: DATABASE_FAILURE, and the same setup token works on retry", async () => {
    const env = setup();
    const { auth, stores, clock } = env;
    await auth.register({}, { email: "ada@example.test", password: PASSWORD });
    await stores.users.update((await stores.users.findByEmail("ada@example.test"))?.id ?? "", {
      emailVerified: true,
    });
    const principal = await auth.authenticate({
      token: (await signedIn(auth, "ada@example.test")).accessToken,
    });
    const stepUp = await auth.stepUp({ principal }, { password: PASSWORD });
    if (stepUp.twoFactorRequired) throw new Error("unexpected 2FA");
    const info = await auth.getTotpSetup({ principal, stepUpToken: stepUp.stepUpToken });
    const update = stores.users.update;
    stores.users.update = () => Promise.reject(new Error("store down"));
    const confirm = () =>
      auth.confirmTotpSetup(
        { principal, stepUpToken: stepUp.stepUpToken },
        {
          setupToken: info.setupToken,
          code: referenceTotp(info.secret, clock.now()),
        },
      );
    expect(await code(confirm())).toBe("DATABASE_FAILURE");
    stores.users.update = update;
    clock.advance(30_000);
    expect(await code(confirm())).toBe("OK");
  });
});

describe("2FA without a method", () => {
  it("completeTwoFactorLogin - with TOTP preferred and email on, an emailed code works when no method is named", async () => {
    const env = setup();
    await withTotp(env);
    const user = await env.stores.users.findByEmail("ada@example.test");
    await env.stores.users.update(user?.id ?? "", {
      twoFactor: {
        ...(user?.twoFactor ?? NO_TWO_FACTOR),
        methods: ["totp", "email"],
        preferredMethod: "totp",
      },
    });
    const token = await secondFactorToken(env.auth);
    await env.auth.sendTwoFactorEmailCode({ token });
    const mailed =
      /(\d{6})/.exec(env.sent.filter((m) => m.kind === "two-factor-code").at(-1)?.text ?? "")?.[1] ?? "";
    expect(await completeLogin(env.auth, token, mailed)).toBe("OK");
  });
});

describe("secret box", () => {
  it("open - a tampered or foreign value is DATABASE_ENCRYPTION_FAILURE", async () => {
    const box = createSecretBox(["k".repeat(32)]);
    const sealed = await box.seal("JBSWY3DPEHPK3PXP");
    expect(await box.open(sealed)).toBe("JBSWY3DPEHPK3PXP");
    expect(sealed).not.toContain("JBSWY3DPEHPK3PXP");
    expect(await code(box.open(`${sealed.slice(0, -2)}AA`))).toBe("DATABASE_ENCRYPTION_FAILURE");
    expect(await code(createSecretBox(["o".repeat(32)]).open(sealed))).toBe("DATABASE_ENCRYPTION_FAILURE");
    expect(await code(box.open("garbage"))).toBe("DATABASE_ENCRYPTION_FAILURE");
  });
});
