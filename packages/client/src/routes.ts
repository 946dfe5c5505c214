// The HTTP API's routes as the client calls them: each route's body, query and answer, typed from
// the core's own types (type imports only: nothing of the core is bundled), so they cannot drift.
// `ROUTE_AUTH` is the run-time list of the same routes; server.test.ts holds it against the
// server's route table and types.test.ts holds the types against the core's use cases.
import type {
  AccountExport,
  ActivityPage,
  AdminUser,
  AdminUserDetail,
  Auth,
  ChangePasswordInput,
  CodeInput,
  ConfirmTotpInput,
  EmailChangeInput,
  EmailInput,
  EmailSignInInput,
  LoginInput,
  PreferredMethodInput,
  RefreshInput,
  RegisterInput,
  RequiredPasswordChangeInput,
  ResetPasswordInput,
  SignedIn,
  StepUpInput,
  TotpSetup,
  TwoFactorChallenge,
  User,
} from "@portcullis/core";

type Answer<F extends (...args: never[]) => unknown> = Awaited<ReturnType<F>>;

/** The methods of a 2FA challenge, as the answers of login and step-up show them. */
type ChallengeMethods = Pick<TwoFactorChallenge, "twoFactorMethods" | "preferredTwoFactorMethod">;

/** A completed sign-in (login, 2FA login, recovery): the tokens only with header authentication. */
export interface SignedInResponse extends ChallengeMethods {
  user: User;
  accessToken: string | null;
  refreshToken: string | null;
  twoFactorRequired: false;
  twoFactorAuthenticationToken: null;
  deviceToken: string | null;
  /** Present (true) when the password just used is in the breach corpus (`breachedPasswords`): ask for a new one. */
  passwordBreached?: true;
  emailCodeSent: false;
  emailCodeCooldown: null;
  /** When the new access token expires (ISO 8601): the client refreshes shortly before. */
  accessTokenExpiresAt: string | null;
}

/** A sign-in or step-up that needs a second factor: the 2FA token only with header authentication. */
export interface TwoFactorRequiredResponse extends ChallengeMethods {
  twoFactorRequired: true;
  twoFactorAuthenticationToken: string | null;
  /** True when this step mailed a code now (email preferred); false when none was to be or could be sent. */
  emailCodeSent: boolean;
  /** Seconds until `POST /2fa/email/send` can mail a code (null when no code was to be mailed). */
  emailCodeCooldown: number | null;
}

/** What `POST /login`, `/2fa/login` and `/2fa/recover` answer. */
export type LoginResponse =
  | SignedInResponse
  | (TwoFactorRequiredResponse & {
      user: null;
      accessToken: null;
      refreshToken: null;
      accessTokenExpiresAt: null;
    });

/** What `POST /step-up` and `/2fa/step-up` answer: the step-up token only with header authentication. */
export type StepUpResponse =
  | { stepUpToken: string | null; twoFactorRequired: false }
  | (TwoFactorRequiredResponse & { stepUpToken: null });

/** What `POST /refresh` answers. */
export interface RefreshResponse {
  user: SignedIn["user"];
  accessToken: string | null;
  refreshToken: string | null;
  /** When the new access token expires (ISO 8601). */
  accessTokenExpiresAt: string | null;
}

/** One route: its JSON body, its query parameters and its answer. */
interface R<Response, Body = undefined, Query = undefined> {
  body: Body;
  query: Query;
  response: Response;
}

type Sessions = Auth["sessions"];
type Admin = Auth["admin"];
type Passkeys = Auth["passkeys"];
type Cooldown = Answer<Auth["requestPasswordReset"]>;
type Remaining = Answer<Auth["getPasswordResetCooldown"]>;

/** Every route of the HTTP API a client calls with `fetch`, by `"METHOD /path"` (relative to the mount). */
export interface Routes {
  "POST /register": R<{ success: true }, RegisterInput>;
  "POST /login": R<LoginResponse, LoginInput>;
  "POST /refresh": R<RefreshResponse, RefreshInput>;
  "POST /logout": R<Answer<Auth["logout"]>>;
  "GET /me": R<Answer<Auth["getCurrentUser"]>>;
  "GET /sessions": R<{ sessions: Answer<Sessions["list"]> }>;
  "DELETE /sessions": R<Answer<Sessions["revokeAll"]>, undefined, { others?: "true" | "false" }>;
  "DELETE /sessions/:id": R<Answer<Sessions["revoke"]>>;
  "GET /activity": R<ActivityPage, undefined, { cursor?: string; limit?: number }>;
  "POST /2fa/login": R<LoginResponse, CodeInput>;
  "POST /2fa/recover": R<LoginResponse, CodeInput>;
  "POST /step-up": R<StepUpResponse, StepUpInput>;
  "POST /2fa/step-up": R<StepUpResponse, CodeInput>;
  "GET /2fa/totp/setup": R<TotpSetup>;
  "POST /2fa/totp/setup": R<Answer<Auth["confirmTotpSetup"]>, ConfirmTotpInput>;
  "DELETE /2fa/totp": R<Answer<Auth["disableTwoFactorMethod"]>>;
  "POST /2fa/email/send": R<Answer<Auth["sendTwoFactorEmailCode"]>>;
  "GET /2fa/email/cooldown": R<Answer<Auth["getTwoFactorEmailCooldown"]>>;
  "POST /2fa/email/enable": R<Answer<Auth["enableEmailTwoFactor"]>, CodeInput>;
  "DELETE /2fa/email": R<Answer<Auth["disableTwoFactorMethod"]>>;
  "POST /2fa/preferred-method": R<Answer<Auth["setPreferredTwoFactorMethod"]>, PreferredMethodInput>;
  "POST /password/reset-request": R<Cooldown, EmailInput>;
  "GET /password/reset/cooldown": R<Remaining, undefined, { email: string }>;
  "POST /password/reset": R<Answer<Auth["resetPassword"]>, ResetPasswordInput, { token: string }>;
  "POST /email/verification/send": R<Answer<Auth["resendVerification"]>>;
  "GET /email/verification/cooldown": R<Answer<Auth["getVerificationCooldown"]>>;
  "POST /email/verification": R<Answer<Auth["verifyEmail"]>, undefined, { token: string }>;
  "GET /oauth/providers": R<{ providers: ReturnType<Auth["identityProviders"]["list"]> }>;
  "POST /oauth/:provider/link": R<{ authorizationUrl: string }, { returnTo?: string }>;
  "DELETE /oauth/:provider": R<Answer<Auth["identityProviders"]["unlink"]>>;
  "POST /password/change": R<Answer<Auth["account"]["changePassword"]>, ChangePasswordInput>;
  "POST /email/change": R<Answer<Auth["account"]["requestEmailChange"]>, EmailChangeInput>;
  "POST /email/change/confirm": R<
    Answer<Auth["account"]["confirmEmailChange"]>,
    undefined,
    { token: string }
  >;
  "DELETE /me": R<Answer<Auth["account"]["delete"]>>;
  "GET /me/export": R<AccountExport>;
  "POST /email-sign-in/request": R<Cooldown, EmailInput>;
  "POST /email-sign-in": R<LoginResponse, EmailSignInInput>;
  "POST /password/change-required": R<LoginResponse, RequiredPasswordChangeInput>;
  "POST /passkeys/register/options": R<Answer<Passkeys["registrationOptions"]>>;
  "POST /passkeys/register": R<Answer<Passkeys["register"]>, { response: unknown; name?: string }>;
  "POST /passkeys/login/options": R<Record<string, unknown>, { email?: string } | undefined>;
  "POST /passkeys/login": R<
    LoginResponse,
    { response: unknown; session?: LoginInput["session"]; rememberMe?: boolean }
  >;
  "POST /passkeys/step-up/options": R<Answer<Passkeys["stepUpOptions"]>>;
  "POST /passkeys/step-up": R<StepUpResponse, { response: unknown }>;
  "GET /passkeys": R<Answer<Passkeys["list"]>>;
  "PATCH /passkeys/:id": R<Answer<Passkeys["rename"]>, { name: string }>;
  "DELETE /passkeys/:id": R<Answer<Passkeys["delete"]>>;
  "GET /admin/users": R<
    Answer<Admin["listUsers"]>,
    undefined,
    { query?: string; cursor?: string; limit?: number }
  >;
  "GET /admin/users/:id": R<AdminUserDetail>;
  "POST /admin/users/:id/lock": R<AdminUser, { reason?: string }>;
  "POST /admin/users/:id/unlock": R<AdminUser>;
  "DELETE /admin/users/:id/sessions": R<Answer<Admin["revokeSessions"]>>;
  "POST /admin/users/:id/require-password-change": R<AdminUser>;
  "POST /admin/users/:id/impersonate": R<ImpersonationResponse>;
}

/**
 * What `POST /admin/users/:id/impersonate` answers: the tokens with header authentication; null
 * with cookie authentication, where the answer sets the browser's session cookies instead.
 */
export interface ImpersonationResponse {
  user: User;
  accessToken: string | null;
  refreshToken: string | null;
  /** ISO 8601: when the impersonation ends (an hour after it started). */
  expiresAt: string;
}

export type RouteKey = keyof Routes;

/**
 * What each route needs from the caller (the server's `auth` of the route): `access` and the kinds
 * that include it are retried once after a refresh when the access token is refused.
 */
export type RouteAuthKind =
  | "none"
  | "sign-out"
  | "access"
  | "step-up"
  | "two-factor"
  | "access-and-two-factor"
  | "access-or-two-factor"
  | "refresh"
  /** The back office: the access token, and the step-up token the client holds (the server asks for it after `admin.authorize`). */
  | "admin";

export const ROUTE_AUTH: { readonly [K in RouteKey]: RouteAuthKind } = {
  "POST /register": "none",
  "POST /login": "none",
  "POST /refresh": "refresh",
  "POST /logout": "sign-out",
  "GET /me": "access",
  "GET /sessions": "access",
  "DELETE /sessions": "access",
  "DELETE /sessions/:id": "access",
  "GET /activity": "access",
  "POST /2fa/login": "two-factor",
  "POST /2fa/recover": "two-factor",
  "POST /step-up": "access",
  "POST /2fa/step-up": "access-and-two-factor",
  "GET /2fa/totp/setup": "step-up",
  "POST /2fa/totp/setup": "step-up",
  "DELETE /2fa/totp": "step-up",
  "POST /2fa/email/send": "access-or-two-factor",
  "GET /2fa/email/cooldown": "access-or-two-factor",
  "POST /2fa/email/enable": "step-up",
  "DELETE /2fa/email": "step-up",
  "POST /2fa/preferred-method": "step-up",
  "POST /password/reset-request": "none",
  "GET /password/reset/cooldown": "none",
  "POST /password/reset": "none",
  "POST /email/verification/send": "access",
  "GET /email/verification/cooldown": "access",
  "POST /email/verification": "none",
  "GET /oauth/providers": "none",
  "POST /oauth/:provider/link": "step-up",
  "DELETE /oauth/:provider": "step-up",
  "POST /password/change": "access",
  "POST /email/change": "step-up",
  "POST /email/change/confirm": "none",
  "DELETE /me": "step-up",
  "GET /me/export": "step-up",
  "POST /email-sign-in/request": "none",
  "POST /email-sign-in": "none",
  "POST /password/change-required": "none",
  "POST /passkeys/register/options": "step-up",
  "POST /passkeys/register": "step-up",
  "POST /passkeys/login/options": "none",
  "POST /passkeys/login": "none",
  "POST /passkeys/step-up/options": "access",
  "POST /passkeys/step-up": "access",
  "GET /passkeys": "access",
  "PATCH /passkeys/:id": "step-up",
  "DELETE /passkeys/:id": "step-up",
  "GET /admin/users": "admin",
  "GET /admin/users/:id": "admin",
  "POST /admin/users/:id/lock": "admin",
  "POST /admin/users/:id/unlock": "admin",
  "DELETE /admin/users/:id/sessions": "admin",
  "POST /admin/users/:id/require-password-change": "admin",
  "POST /admin/users/:id/impersonate": "admin",
};

/**
 * The routes a browser navigates to rather than fetches (they answer with redirects), and the
 * OpenAPI document: `authorizeUrl` builds the first; the client does not call the others.
 */
export const NAVIGATION_ROUTES = [
  "GET /oauth/:provider/authorize",
  "GET /oauth/:provider/callback",
  "GET /openapi.json",
] as const;
