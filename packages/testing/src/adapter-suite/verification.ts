import { expect } from "vitest";
import { type App, type AppTests, expectError, type SignedIn } from "./fixture.js";

/** Email verification: every row of the resend table. */
export const verificationTests: AppTests = {
  "verification - every row of the resend table: 401, 404, 304 (no body), 429, 200; the link verifies once":
    async (boot) => {
      const app = await boot();
      expectError(
        await app.call("resend no token", "POST", "/api/auth/email/verification/send"),
        401,
        "AUTHENTICATION_REQUIRED",
      );
      expectError(
        await app.call("resend bad token", "POST", "/api/auth/email/verification/send", { bearer: "bad" }),
        401,
        "ACCESS_TOKEN_INVALID",
      );
      const signedIn = await app.signUp("verify@example.test");
      await app.auth.idle();
      expect(app.emails.filter((email) => email.kind === "email-verification")).toMatchObject([
        { to: "verify@example.test" },
      ]);
      await expectResendCooling(app, signedIn);
      await expectVerifiedOnce(app, signedIn);
      app.goneUserIds.add(signedIn.user.id);
      expectError(
        await app.call("resend gone", "POST", "/api/auth/email/verification/send", {
          bearer: signedIn.accessToken,
        }),
        404,
        "USER_NOT_FOUND",
      );
    },
};

/** Right after registering, a resend is 429 with the remaining seconds; once released, 200 and sent. */
async function expectResendCooling(app: App, { accessToken }: SignedIn) {
  const cooling = await app.call("resend cooldown", "POST", "/api/auth/email/verification/send", {
    bearer: accessToken,
  });
  expectError(cooling, 429, "EMAIL_COOLDOWN_ACTIVE");
  expect(cooling.headers.get("retry-after")).toBe(String(cooling.body.remaining));
  const remaining = await app.call("verification cooldown", "GET", "/api/auth/email/verification/cooldown", {
    bearer: accessToken,
  });
  expect((remaining.body as { remaining: number }).remaining).toBeGreaterThan(0);

  await app.stores.cooldowns.release("email:email-verification:verify@example.test");
  const sent = await app.call("resend ok", "POST", "/api/auth/email/verification/send?locale=de", {
    bearer: accessToken,
  });
  expect(sent.status).toBe(200);
  expect(sent.body).toEqual({ cooldown: 60 });
  expect(app.emails.at(-1)).toMatchObject({
    kind: "email-verification",
    locale: "de",
    to: "verify@example.test",
  });
}

/** The newest link verifies once; then the link and a resend are 304 without a body; garbage is 401. */
async function expectVerifiedOnce(app: App, { accessToken, user }: SignedIn) {
  const token = app.tokenFrom("email-verification");
  const verified = await app.call("verify", "POST", `/api/auth/email/verification?token=${token}`);
  expect(verified.status).toBe(200);
  expect(verified.body).toMatchObject({ id: user.id, emailVerified: true });
  const reused = await app.call("verify again", "POST", `/api/auth/email/verification?token=${token}`);
  expect(reused.status).toBe(304);
  expect(reused.headers.get("auth-error-code")).toBe("EMAIL_ALREADY_VERIFIED");
  expect(reused.text).toBe("");
  const already = await app.call("resend verified", "POST", "/api/auth/email/verification/send", {
    bearer: accessToken,
  });
  expect(already.status).toBe(304);
  expect(already.headers.get("auth-error-code")).toBe("EMAIL_ALREADY_VERIFIED");
  expectError(
    await app.call("verify garbage", "POST", "/api/auth/email/verification?token=garbage-token-value-123"),
    401,
    "EMAIL_VERIFICATION_TOKEN_INVALID",
  );
}
