import type { AuthContext, Principal, RequestContext, SessionInfo, User } from "./context.js";
import { createEmailService } from "./emails/email-service.js";
import { createEmailRenderer } from "./emails/renderer.js";
import { createArgon2Hasher } from "./hashing/argon2-hasher.js";
import { createTranslator, type Translator } from "./i18n/index.js";
import { type AuthOptions, parseAuthOptions, type ResolvedAuthOptions } from "./options.js";
import { type Clock, systemClock } from "./ports/clock.js";
import { consoleLogger, type Logger } from "./ports/logger.js";
import { createAccessTokenCodec } from "./tokens/access-token.js";
import { randomToken } from "./tokens/random.js";
import { authenticate } from "./use-cases/authenticate.js";
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
import { verifyEmail } from "./use-cases/verify-email.js";

/** The use cases of one configured Portcullis instance; each is a plain async method. */
export interface Auth {
  readonly options: ResolvedAuthOptions;
  readonly translator: Translator;
  readonly clock: Clock;
  readonly logger: Logger;
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
  verifyEmail(token: string | undefined): Promise<User>;
}

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
      secret: options.secret,
      issuer: options.issuer,
      audience: options.audience,
      ttlSeconds: options.accessTokenTtlSeconds,
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

  // Hash the dummy password now, so the first unknown-email login costs the same as any other.
  ctx
    .dummyHash()
    .catch((error: unknown) =>
      ctx.logger.error(
        { event: "hasher.failed", err: String(error) },
        "could not prepare the dummy password hash",
      ),
    );

  // Compile the MJML templates once, off the request path; a send waits for it if it comes first.
  if (options.email.enabled) {
    renderer
      .compile()
      .catch((error: unknown) =>
        logger.error(
          { event: "email.compile_failed", err: String((error as Error).cause ?? error) },
          "could not compile email templates",
        ),
      );
  }

  return {
    options,
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
    verifyEmail: (token) => verifyEmail(ctx, token),
  };
}
