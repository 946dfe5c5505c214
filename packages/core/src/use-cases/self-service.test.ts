import { describe, expect, it } from "vitest";
import type { Auth } from "../create-auth/auth.js";
import { code, createTestAuth, fastHasher, PASSWORD, signIn } from "../test-support.js";

const NEW_PASSWORD = "a different long passphrase";

/** A registered, signed-in account with a step-up: the call the settings use cases take. */
async function steppedUp(auth: Auth, email: string) {
  await auth.register({}, { email, password: PASSWORD });
  const login = await signIn(auth, { email, password: PASSWORD });
  const principal = await auth.authenticate({ token: login.accessToken });
  const stepped = await auth.stepUp({ principal }, { password: PASSWORD });
  if (stepped.twoFactorRequired) throw new Error("unexpected 2FA");
  return { principal, call: { principal, stepUpToken: stepped.stepUpToken }, login };
}

const linkToken = (html: string | undefined) => {
  const href = /href="([^"]+\?token=[^"]+)"/.exec(html ?? "")?.[1]?.replace(/&amp;/g, "&");
  return new URL(href ?? "https://x.test/").searchParams.get("token") ?? undefined;
};

// White-box: store failures in the middle of a change leave the old state whole or the new one.
describe("account self-service", () => {
  it("account.changePassword - the store failing to replace the hash is DATABASE_FAILURE; the old password still signs in, the caller's session stays", async () => {
    const { auth, stores } = createTestAuth({ email: { loginAlerts: false } });
    const { principal } = await steppedUp(auth, "fails@example.test");
    const replace = stores.users.replacePasswordHash?.bind(stores.users);
    stores.users.replacePasswordHash = () => Promise.reject(new Error("connection reset"));
    expect(
      await code(
        auth.account.changePassword({ principal }, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD }),
      ),
    ).toBe("DATABASE_FAILURE");
    stores.users.replacePasswordHash = replace;
    expect(await code(signIn(auth, { email: "fails@example.test", password: PASSWORD }))).toBe("OK");
    expect(await code(auth.getCurrentUser({ principal }))).toBe("OK");
  });

  it("account.changePassword - a reset landing between the check and the write wins: INVALID_CREDENTIALS, the reset's password stays", async () => {
    const { auth, stores } = createTestAuth({ email: { loginAlerts: false } });
    const { principal } = await steppedUp(auth, "race@example.test");
    const user = await stores.users.findByEmail("race@example.test");
    const replace = stores.users.replacePasswordHash?.bind(stores.users);
    if (!user || !replace) throw new Error("setup");
    stores.users.replacePasswordHash = async (id, expected, next) => {
      await stores.users.update(id, { passwordHash: await fastHasher().hash("the reset's password") });
      return replace(id, expected, next);
    };
    expect(
      await code(
        auth.account.changePassword({ principal }, { currentPassword: PASSWORD, newPassword: NEW_PASSWORD }),
      ),
    ).toBe("INVALID_CREDENTIALS");
    expect(await code(signIn(auth, { email: "race@example.test", password: "the reset's password" }))).toBe(
      "OK",
    );
    expect(await code(signIn(auth, { email: "race@example.test", password: NEW_PASSWORD }))).toBe(
      "INVALID_CREDENTIALS",
    );
  });

  it("account.confirmEmailChange - the store failing to move the account is DATABASE_FAILURE and the link works again afterwards", async () => {
    const { auth, stores, sent } = createTestAuth({ email: { loginAlerts: false } });
    const { call } = await steppedUp(auth, "move@example.test");
    await auth.account.requestEmailChange(call, { newEmail: "moved@example.test" });
    const token = linkToken(sent.find((message) => message.kind === "email-change")?.html);
    const changeEmail = stores.users.changeEmail?.bind(stores.users);
    stores.users.changeEmail = () => Promise.reject(new Error("connection reset"));
    expect(await code(auth.account.confirmEmailChange({ token }))).toBe("DATABASE_FAILURE");
    expect((await stores.users.findByEmail("move@example.test"))?.email).toBe("move@example.test");
    stores.users.changeEmail = changeEmail;
    const moved = await auth.account.confirmEmailChange({ token });
    expect(moved).toMatchObject({ email: "moved@example.test", emailVerified: true });
    expect(await code(auth.account.confirmEmailChange({ token }))).toBe("EMAIL_CHANGE_TOKEN_INVALID");
  });

  it("account.confirmEmailChange - a link for an address the account no longer has is EMAIL_CHANGE_TOKEN_INVALID; an expired one too", async () => {
    const { auth, sent, clock } = createTestAuth({ email: { loginAlerts: false, cooldownSeconds: 1 } });
    const { call } = await steppedUp(auth, "twice@example.test");
    await auth.account.requestEmailChange(call, { newEmail: "first@example.test" });
    const first = linkToken(sent.filter((message) => message.kind === "email-change").at(-1)?.html);
    clock.advance(2_000);
    await auth.account.requestEmailChange(call, { newEmail: "second@example.test" });
    const second = linkToken(sent.filter((message) => message.kind === "email-change").at(-1)?.html);
    // A newer request invalidates the older link.
    expect(await code(auth.account.confirmEmailChange({ token: first }))).toBe("EMAIL_CHANGE_TOKEN_INVALID");
    clock.advance(24 * 3600 * 1000 + 1_000);
    expect(await code(auth.account.confirmEmailChange({ token: second }))).toBe("EMAIL_CHANGE_TOKEN_INVALID");
  });

  it("account.requestEmailChange - a user store without changeEmail is INTERNAL_ERROR, logged", async () => {
    const { auth, stores } = createTestAuth({ email: { loginAlerts: false } });
    const { call } = await steppedUp(auth, "old-store@example.test");
    delete (stores.users as { changeEmail?: unknown }).changeEmail;
    expect(await code(auth.account.requestEmailChange(call, { newEmail: "new@example.test" }))).toBe(
      "INTERNAL_ERROR",
    );
  });

  it("account.export - holds the 2FA methods and recovery codes left, never the secret or the hashes", async () => {
    const { auth, stores } = createTestAuth({ email: { loginAlerts: false } });
    const { call, principal } = await steppedUp(auth, "export@example.test");
    await stores.users.update(principal.userId, {
      twoFactor: {
        methods: ["totp"],
        preferredMethod: "totp",
        totpSecretEncrypted: "sealed-secret-value",
        recoveryCodeHashes: ["recovery-hash-1", "recovery-hash-2"],
      },
    });
    const exported = await auth.account.export(call);
    expect(exported.twoFactor).toEqual({ methods: ["totp"], preferredMethod: "totp", recoveryCodesLeft: 2 });
    const text = JSON.stringify(exported);
    for (const secret of ["sealed-secret-value", "recovery-hash-1", "$argon2id"])
      expect(text).not.toContain(secret);
  });
});
