// What the host API takes, as a caller writes it (the schemas in validation.ts check it), and the
// TOTP setup it shows once. Re-exported from auth.ts.
import type { z } from "zod";
import type * as schemas from "../validation.js";

/** What `register` takes. */
export type RegisterInput = z.input<typeof schemas.registerInput>;
/** What `login` takes. */
export type LoginInput = z.input<typeof schemas.loginInput>;
/** What `refresh` takes besides the token. */
export type RefreshInput = z.input<typeof schemas.refreshInput>;
/** What `requestPasswordReset` takes. */
export type EmailInput = z.input<typeof schemas.emailInput>;
/** What `resetPassword` takes besides the token. */
export type ResetPasswordInput = z.input<typeof schemas.resetPasswordInput>;
/** What the second-factor use cases take (`rememberMe` only counts where a sign-in ends). */
export type CodeInput = z.input<typeof schemas.signInCodeInput>;
/** What `stepUp` takes. */
export type StepUpInput = z.input<typeof schemas.stepUpInput>;
/** What `confirmTotpSetup` takes. */
export type ConfirmTotpInput = z.input<typeof schemas.confirmTotpInput>;
/** What `setPreferredTwoFactorMethod` takes. */
export type PreferredMethodInput = z.input<typeof schemas.preferredMethodInput>;
/** What `sessions.create` takes. */
export type CreateSessionInput = z.input<typeof schemas.createSessionInput>;
/** What `signInWithEmail` takes: the emailed link's `token`, or `email` and the emailed `code`. */
export type EmailSignInInput = z.input<typeof schemas.emailSignInInput>;
/** What `account.changePassword` takes. */
export type ChangePasswordInput = z.input<typeof schemas.changePasswordInput>;
/** What `account.requestEmailChange` takes. */
export type EmailChangeInput = z.input<typeof schemas.emailChangeInput>;
/** What `host.createUser` takes. */
export type CreateUserInput = z.input<typeof schemas.createUserInput>;
/** What `completeRequiredPasswordChange` takes. */
export type RequiredPasswordChangeInput = z.input<typeof schemas.requiredPasswordChangeInput>;

/** What a TOTP setup shows the user once: nothing is stored until `confirmTotpSetup`. */
export interface TotpSetup {
  /** Base32, 160 bits. */
  secret: string;
  otpauthUri: string;
  /** Ten one-time codes, `XXXXX-XXXXX`. */
  recoveryCodes: string[];
  setupToken: string;
}
