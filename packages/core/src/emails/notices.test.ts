import { createMemoryStores } from "@portcullis/store-memory";
import { createFakeClock, referenceTotp } from "@portcullis/testing";
import { describe, expect, it } from "vitest";
import { createAuth } from "../create-auth/create-auth.js";
import type { SecurityEvent } from "../events.js";
import { createArgon2Hasher } from "../hashing/argon2-hasher.js";
import { silentLogger } from "../ports/logger.js";
import type { EmailMessage } from "../ports/mailer.js";

/** Random (`createAuth` refuses placeholders, repeats and sequences): a made-up one would not start. */
const TEST_SECRET = "test-secret--Xqhj7KKuQIZYk1ZmwEfIcFYTaXSOki1lZ3AYb8Kqlg";
const PASSWORD = "correct horse battery staple";
const ADA = "ada@example.test";
const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:130.0) Gecko/20100101 Firefox/130.0";

/** Login alerts off: the recovery notice is sent whatever `email.loginAlerts` says. */
function setup() {
  const clock = createFakeClock({ start: Date.UTC(2026, 0, 1, 12) });
  const sent: EmailMessage[] = [];
  const events: SecurityEvent[] = [];
  const stores = createMemoryStores({ clock, sweepIntervalMs: 0 });
  const auth = createAuth({
    secret: TEST_SECRET,
    stores,
    clock,
    mailer: { send: async (message) => void sent.push(message) },
    appOrigin: "https://app.example.test",
    logger: silentLogger,
    passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
    email: { loginAlerts: false },
    onEvent: (event) => void events.push(event),
  });
  return { auth, stores, clock, sent, events };
}

type Env = ReturnType<typeof setup>;

/** Ada, verified, signed in, as a principal with a step-up token. */
async function signedInWithStepUp({ auth, stores }: Env) {
  await auth.register({}, { email: ADA, password: PASSWORD });
  // 2FA needs a verified address; the verification flow itself is tested elsewhere.
  await auth.host.markEmailVerified({}, (await stores.users.findByEmail(ADA))?.id ?? "");
  const login = await auth.login({}, { email: ADA, password: PASSWORD });
  if (login.twoFactorRequired) throw new Error("unexpected 2FA");
  const principal = await auth.authenticate({ token: login.accessToken });
  const stepUp = await auth.stepUp({ principal }, { password: PASSWORD });
  if (stepUp.twoFactorRequired) throw new Error("unexpected 2FA");
  return { principal, stepUpToken: stepUp.stepUpToken };
}

/** Ada with TOTP on: her recovery codes. */
async function withTotp(env: Env) {
  const { principal, stepUpToken } = await signedInWithStepUp(env);
  const setupInfo = await env.auth.getTotpSetup({ principal, stepUpToken });
  await env.auth.confirmTotpSetup(
    { principal, stepUpToken },
    {
      setupToken: setupInfo.setupToken,
      code: referenceTotp(setupInfo.secret, env.clock.now()),
    },
  );
  env.clock.advance(30_000);
  await env.auth.idle();
  env.sent.length = 0;
  return setupInfo.recoveryCodes;
}

async function recover(env: Env, code: string, locale?: string) {
  const request = { ip: "203.0.113.7", userAgent: FIREFOX, ...(locale ? { locale } : {}) };
  const login = await env.auth.login({ request }, { email: ADA, password: PASSWORD });
  if (!login.twoFactorRequired) throw new Error("expected 2FA");
  return env.auth.recoverWithRecoveryCode({ token: login.twoFactorAuthenticationToken, request }, { code });
}

describe("recovery-code notice", () => {
  it("recoverWithRecoveryCode - mails the owner a notice with the codes left, time, device, IP and the security link; no login alert", async () => {
    const env = setup();
    const codes = await withTotp(env);
    await recover(env, codes[0] ?? "");
    await env.auth.idle();
    expect(env.sent.map((message) => message.kind)).toEqual(["recovery-code-used"]);
    const notice = env.sent[0] as EmailMessage;
    expect(notice).toMatchObject({ to: ADA, locale: "en" });
    expect(notice.subject).toBe("A recovery code was used for your Portcullis account");
    for (const part of [notice.text, notice.html]) {
      expect(part).toContain(`${codes.length - 1} recovery codes are left`);
      expect(part).toContain("203.0.113.7");
      expect(part).toContain("Firefox");
      expect(part).toContain("Linux");
      expect(part).toContain("2026");
      expect(part).toContain("https://app.example.test/settings/security");
    }
    expect(env.events.findLast((event) => event.type === "login.succeeded")).toMatchObject({
      reason: "recovery_code",
      ip: "203.0.113.7",
    });
  });

  it("recoverWithRecoveryCode - the notice in German, singular and none left", async () => {
    const env = setup();
    const codes = await withTotp(env);
    for (const code of codes.slice(0, -1)) {
      await recover(env, code, "de");
      env.clock.advance(1_000);
    }
    await env.auth.idle();
    const notices = env.sent.filter((message) => message.kind === "recovery-code-used");
    expect(notices).toHaveLength(codes.length - 1);
    const one = notices.at(-1) as EmailMessage;
    expect(one.locale).toBe("de");
    expect(one.subject).toBe("Ein Wiederherstellungscode wurde für dein Portcullis-Konto verwendet");
    expect(one.text).toContain("Du hast noch einen Wiederherstellungscode.");
    expect(one.text).toContain("IP-Adresse: 203.0.113.7");
    expect(notices[0]?.text).toContain(`Du hast noch ${codes.length - 1} Wiederherstellungscodes.`);

    env.sent.length = 0;
    await recover(env, codes.at(-1) ?? "");
    await env.auth.idle();
    expect(env.sent[0]?.text).toContain("no recovery codes are left");
  });

  it("recoverWithRecoveryCode - escapes what the client sent (the stated browser) in the HTML", async () => {
    const env = setup();
    const codes = await withTotp(env);
    const login = await env.auth.login({}, { email: ADA, password: PASSWORD });
    if (!login.twoFactorRequired) throw new Error("expected 2FA");
    await env.auth.recoverWithRecoveryCode(
      { token: login.twoFactorAuthenticationToken },
      {
        code: codes[0],
        session: { browser: "<b>Evil</b> & co" },
      },
    );
    await env.auth.idle();
    const notice = env.sent.find((message) => message.kind === "recovery-code-used");
    expect(notice?.html).toContain("&lt;b&gt;Evil&lt;/b&gt; &amp; co");
    expect(notice?.html).not.toContain("<b>Evil</b>");
  });
});

describe("email 2FA setup code", () => {
  it("sendTwoFactorEmailCode - the code that turns codes by email on says so (en, de); the login code still says sign in", async () => {
    const env = setup();
    const { principal, stepUpToken } = await signedInWithStepUp(env);
    await env.auth.idle();
    env.sent.length = 0;
    await env.auth.sendTwoFactorEmailCode({ principal });
    const setupEmail = env.sent.at(-1) as EmailMessage;
    expect(setupEmail.kind).toBe("two-factor-code");
    expect(setupEmail.subject).toMatch(/^Your Portcullis code to turn on codes by email: \d{6}$/);
    expect(setupEmail.text).toContain("Enter this code to turn on sign-in codes by email");
    expect(setupEmail.text).not.toContain("finish signing in");

    env.clock.advance(61_000);
    await env.auth.sendTwoFactorEmailCode({ principal, request: { locale: "de" } });
    const german = env.sent.at(-1) as EmailMessage;
    expect(german.subject).toMatch(/^Dein Portcullis-Code zum Aktivieren der Codes per E-Mail: \d{6}$/);
    expect(german.text).toContain("um Anmeldecodes per E-Mail für dein Portcullis-Konto");
    expect(german.text).not.toContain("Anmeldung bei Portcullis abzuschließen");

    const code = /(\d{6})/.exec(german.subject)?.[1] ?? "";
    await env.auth.enableEmailTwoFactor({ principal, stepUpToken }, { code });
    env.clock.advance(61_000);
    const login = await env.auth.login({}, { email: ADA, password: PASSWORD });
    if (!login.twoFactorRequired) throw new Error("expected 2FA");
    const signInEmail = env.sent.filter((message) => message.kind === "two-factor-code").at(-1);
    expect(signInEmail?.subject).toMatch(/^Your Portcullis sign-in code: \d{6}$/);
    expect(signInEmail?.text).toContain("finish signing in");
  });
});
