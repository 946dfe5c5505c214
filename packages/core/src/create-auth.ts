import type { AuthContext, Principal, RequestContext, SessionInfo, User } from "./context.js";
import { createEmailService } from "./emails/email-service.js";
import { createEmailRenderer } from "./emails/renderer.js";
import { createSecurityEvents } from "./events.js";
import { createArgon2Hasher } from "./hashing/argon2-hasher.js";
import { createTranslator, type Translator } from "./i18n/index.js";
import { createLimits } from "./limits/limits.js";
import { type AuthOptions, parseAuthOptions, type ResolvedAuthOptions } from "./options.js";
import { type Clock, systemClock } from "./ports/clock.js";
import { consoleLogger, type Logger } from "./ports/logger.js";
import type { TwoFactorMethod } from "./ports/user-store.js";
import { createAccessTokenCodec } from "./tokens/access-token.js";
import { createKeyedHash, createSigningKeys } from "./tokens/keys.js";
import { randomToken } from "./tokens/random.js";
import { createSecretBox } from "./two-factor/secret-box.js";
import { createStepUpTokens } from "./two-factor/step-up-token.js";
import { authenticate } from "./use-cases/authenticate.js";
import { completeTwoFactorLogin, recoverWithRecoveryCode } from "./use-cases/complete-two-factor-login.js";
import { getCurrentUser } from "./use-cases/get-current-user.js";
import { getPasswordResetCooldown } from "./use-cases/get-password-reset-cooldown.js";
import { listSessions } from "./use-cases/list-sessions.js";
import { type LoginResult, login } from "./use-cases/login.js";
import { logout } from "./use-cases/logout.js";
import { type RefreshResult, refresh } from "./use-cases/refresh.js";
import { register } from "./use-cases/register.js";
import { requestPasswordReset } from "./use-cases/request-password-reset.js";
import { getVerificationCooldown, resendVerification } from "./use-cases/resend-verification.js";
import { resetPassword } from "./use-cases/reset-password.js";
import { revokeAllSessions } from "./use-cases/revoke-all-sessions.js";
import { revokeSession } from "./use-cases/revoke-session.js";
import { completeTwoFactorStepUp, type StepUpResult, stepUp } from "./use-cases/step-up.js";
import {
  confirmTotpSetup,
  disableTwoFactorMethod,
  enableEmailTwoFactor,
  getTotpSetup,
  getTwoFactorEmailCooldown,
  sendTwoFactorEmailCode,
  setPreferredTwoFactorMethod,
} from "./use-cases/two-factor-settings.js";
import { verifyEmail } from "./use-cases/verify-email.js";

/** The use cases of one configured Portcullis instance; each is a plain async method. */
export interface Auth {
  readonly options: ResolvedAuthOptions;
  readonly translator: Translator;
  readonly clock: Clock;
  readonly logger: Logger;
  /**
   * Resolves once start-up work is done (email templates compiled, the dummy password hash made),
   * so the first requests wait for nothing; await it before listening if first-request latency
   * matters. Never rejects: failures are logged and surface as the use cases' error codes.
   */
  ready(): Promise<void>;
  register(input: unknown, request?: RequestContext): Promise<{ success: true }>;
  login(input: unknown, request?: RequestContext): Promise<LoginResult>;
  refresh(
    refreshToken: string | undefined,
    input?: unknown,
    request?: RequestContext,
  ): Promise<RefreshResult>;
  logout(tokens: {
    accessToken?: string | undefined;
    refreshToken?: string | undefined;
  }): Promise<{ success: true }>;
  authenticate(accessToken: string | undefined): Promise<Principal>;
  getCurrentUser(principal: Principal): Promise<User>;
  listSessions(principal: Principal): Promise<SessionInfo[]>;
  revokeSession(principal: Principal, sessionId: string): Promise<{ success: true }>;
  revokeAllSessions(principal: Principal): Promise<{ success: true; revoked: number }>;
  requestPasswordReset(input: unknown, request?: RequestContext): Promise<{ cooldown: number }>;
  getPasswordResetCooldown(email: unknown): Promise<{ remaining: number }>;
  resetPassword(
    token: string | undefined,
    input: unknown,
    request?: RequestContext,
  ): Promise<{ success: true }>;
  resendVerification(principal: Principal, request?: RequestContext): Promise<{ cooldown: number }>;
  getVerificationCooldown(principal: Principal): Promise<{ remaining: number }>;
  verifyEmail(token: string | undefined, request?: RequestContext): Promise<User>;
  completeTwoFactorLogin(
    twoFactorToken: string | undefined,
    input: unknown,
    request?: RequestContext,
  ): Promise<SignedIn>;
  recoverWithRecoveryCode(
    twoFactorToken: string | undefined,
    input: unknown,
    request?: RequestContext,
  ): Promise<SignedIn>;
  stepUp(principal: Principal, input: unknown, request?: RequestContext): Promise<StepUpResult>;
  completeTwoFactorStepUp(
    principal: Principal,
    twoFactorToken: string | undefined,
    input: unknown,
    request?: RequestContext,
  ): Promise<{ twoFactorRequired: false; stepUpToken: string }>;
  getTotpSetup(
    principal: Principal,
    stepUpToken: string | undefined,
  ): Promise<{ secret: string; otpauthUri: string; recoveryCodes: string[]; setupToken: string }>;
  confirmTotpSetup(
    principal: Principal,
    stepUpToken: string | undefined,
    input: unknown,
    request?: RequestContext,
  ): Promise<User>;
  disableTwoFactorMethod(
    principal: Principal,
    stepUpToken: string | undefined,
    method: TwoFactorMethod,
    request?: RequestContext,
  ): Promise<User>;
  sendTwoFactorEmailCode(
    who: { principal: Principal } | { twoFactorToken: string | undefined },
    request?: RequestContext,
  ): Promise<{ cooldown: number }>;
  getTwoFactorEmailCooldown(principal: Principal): Promise<{ remaining: number }>;
  enableEmailTwoFactor(
    principal: Principal,
    stepUpToken: string | undefined,
    input: unknown,
    request?: RequestContext,
  ): Promise<User>;
  setPreferredTwoFactorMethod(
    principal: Principal,
    stepUpToken: string | undefined,
    input: unknown,
  ): Promise<User>;
}

/** A completed sign-in. */
export type SignedIn = Extract<LoginResult, { twoFactorRequired: false }>;

/** Validates the options (throwing on a bad one, naming it) and wires the use cases to the ports. */
export function createAuth(input: AuthOptions): Auth {
  const options = parseAuthOptions(input);
  const clock = options.clock ?? systemClock;
  const hasher = options.passwordHasher ?? createArgon2Hasher();
  const logger = options.logger ?? consoleLogger;
  const translator = createTranslator(options.defaultLocale, input.locales);
  const renderer = createEmailRenderer({
    brand: options.email.brand,
    translator,
    templates: options.email.templates,
  });
  let dummyHash: Promise<string> | undefined;
  const signingKeys = createSigningKeys(options.secret, "ACCESS_TOKEN_INVALID");
  const encryptionKeys = options.twoFactor.encryptionKey ?? options.secret;
  if (!options.twoFactor.encryptionKey && !["development", "test"].includes(process.env.NODE_ENV ?? "")) {
    logger.warn(
      { event: "config.encryption_key_missing" },
      "twoFactor.encryptionKey is not set: TOTP secrets and recovery codes are keyed by `secret`, which then cannot be rotated away",
    );
  }
  const events = createSecurityEvents({ onEvent: options.onEvent, logger, clock });
  const ctx: AuthContext = {
    options,
    users: options.stores.users,
    cooldowns: options.stores.cooldowns,
    sessions: options.stores.sessions,
    mailer: options.mailer,
    hasher,
    clock,
    logger,
    translator,
    accessTokens: createAccessTokenCodec({
      keys: signingKeys,
      issuer: options.issuer,
      audience: options.audience,
      ttlSeconds: options.accessTokenTtlSeconds,
      clock,
    }),
    secretBox: createSecretBox(encryptionKeys),
    recoveryCodes: createKeyedHash(encryptionKeys, "recovery codes v1"),
    limits: createLimits(options, options.stores.cooldowns, events),
    events,
    stepUpTokens: createStepUpTokens({
      keys: signingKeys,
      issuer: options.issuer,
      audience: options.audience,
      ttlSeconds: options.stepUpTokenTtlSeconds,
      clock,
    }),
    emails: createEmailService({
      enabled: options.email.enabled,
      mailer: options.mailer,
      renderer,
      appOrigin: options.appOrigin,
      links: options.email.links,
      sendTimeoutMs: options.email.sendTimeoutMs,
      logger,
    }),
    dummyHash() {
      dummyHash ??= hasher.hash(randomToken(24)).catch((error: unknown) => {
        dummyHash = undefined;
        throw error;
      });
      return dummyHash;
    },
  };

  // Start-up work, off the request path: the dummy hash (so the first unknown-email login costs
  // the same as any other) and the MJML templates (compiled once; a send waits if it comes first).
  const startup = Promise.all([
    ctx
      .dummyHash()
      .catch((error: unknown) =>
        logger.error(
          { event: "hasher.failed", err: String(error) },
          "could not prepare the dummy password hash",
        ),
      ),
    options.email.enabled
      ? renderer
          .compile()
          .catch((error: unknown) =>
            logger.error(
              { event: "email.compile_failed", err: String((error as Error).cause ?? error) },
              "could not compile email templates",
            ),
          )
      : undefined,
  ]).then(() => undefined);

  return {
    options,
    ready: () => startup,
    translator: ctx.translator,
    clock,
    logger: ctx.logger,
    register: (body, request) => register(ctx, body, request),
    login: (body, request) => login(ctx, body, request),
    refresh: (token, body, request) => refresh(ctx, token, body, request),
    logout: (tokens) => logout(ctx, tokens),
    authenticate: (token) => authenticate(ctx, token),
    getCurrentUser: (principal) => getCurrentUser(ctx, principal),
    listSessions: (principal) => listSessions(ctx, principal),
    revokeSession: (principal, sessionId) => revokeSession(ctx, principal, sessionId),
    revokeAllSessions: (principal) => revokeAllSessions(ctx, principal),
    requestPasswordReset: (body, request) => requestPasswordReset(ctx, body, request),
    getPasswordResetCooldown: (email) => getPasswordResetCooldown(ctx, email),
    resetPassword: (token, body, request) => resetPassword(ctx, token, body, request),
    resendVerification: (principal, request) => resendVerification(ctx, principal, request),
    getVerificationCooldown: (principal) => getVerificationCooldown(ctx, principal),
    verifyEmail: (token, request) => verifyEmail(ctx, token, request),
    completeTwoFactorLogin: (token, body, request) => completeTwoFactorLogin(ctx, token, body, request),
    recoverWithRecoveryCode: (token, body, request) => recoverWithRecoveryCode(ctx, token, body, request),
    stepUp: (principal, body, request) => stepUp(ctx, principal, body, request),
    completeTwoFactorStepUp: (principal, token, body, request) =>
      completeTwoFactorStepUp(ctx, principal, token, body, request),
    getTotpSetup: (principal, token) => getTotpSetup(ctx, principal, token),
    confirmTotpSetup: (principal, token, body, request) =>
      confirmTotpSetup(ctx, principal, token, body, request),
    disableTwoFactorMethod: (principal, token, method, request) =>
      disableTwoFactorMethod(ctx, principal, token, method, request),
    sendTwoFactorEmailCode: (who, request) => sendTwoFactorEmailCode(ctx, who, request),
    getTwoFactorEmailCooldown: (principal) => getTwoFactorEmailCooldown(ctx, principal),
    enableEmailTwoFactor: (principal, token, body, request) =>
      enableEmailTwoFactor(ctx, principal, token, body, request),
    setPreferredTwoFactorMethod: (principal, token, body) =>
      setPreferredTwoFactorMethod(ctx, principal, token, body),
  };
}
