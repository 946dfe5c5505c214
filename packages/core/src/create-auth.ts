import type { AdminApi, Auth, IdentityProviderApi, SessionApi } from "./auth.js";
import { createBackgroundTasks } from "./background.js";
import type { AuthContext } from "./context.js";
import { createEmailService } from "./emails/email-service.js";
import { createEmailRenderer, type EmailRenderer } from "./emails/renderer.js";
import { AuthError } from "./errors.js";
import { createSecurityEvents } from "./events.js";
import { createArgon2Hasher } from "./hashing/argon2-hasher.js";
import { createTranslator, type Translator } from "./i18n/index.js";
import { createRelyingParties } from "./identity/flow.js";
import { assertOpenIdClientInstalled, loadOpenIdClient } from "./identity/relying-party.js";
import { createLimits } from "./limits/limits.js";
import { isIssuedPrincipal, type Principal } from "./model.js";
import { type AuthOptions, parseAuthOptions, type ResolvedAuthOptions } from "./options.js";
import { systemClock } from "./ports/clock.js";
import { consoleLogger } from "./ports/logger.js";
import { createAccessTokenCodec } from "./tokens/access-token.js";
import { createKeyedHash, createSigningKeys } from "./tokens/keys.js";
import { randomId, randomToken } from "./tokens/random.js";
import { createSecretBox } from "./two-factor/secret-box.js";
import { createStepUpTokens } from "./two-factor/step-up-token.js";
import { authenticate } from "./use-cases/authenticate.js";
import { completeTwoFactorLogin } from "./use-cases/complete-two-factor-login.js";
import { completeTwoFactorStepUp } from "./use-cases/complete-two-factor-step-up.js";
import { confirmTotpSetup } from "./use-cases/confirm-totp-setup.js";
import { createSession } from "./use-cases/create-session.js";
import { createUser } from "./use-cases/create-user.js";
import { deleteUser } from "./use-cases/delete-user.js";
import { disableTwoFactorMethod } from "./use-cases/disable-two-factor-method.js";
import { enableEmailTwoFactor } from "./use-cases/enable-email-two-factor.js";
import { finishIdentityProviderSignIn } from "./use-cases/finish-identity-provider-sign-in.js";
import { getCurrentUser } from "./use-cases/get-current-user.js";
import { getPasswordResetCooldown } from "./use-cases/get-password-reset-cooldown.js";
import { getTotpSetup } from "./use-cases/get-totp-setup.js";
import { getTwoFactorEmailCooldown } from "./use-cases/get-two-factor-email-cooldown.js";
import { getVerificationCooldown } from "./use-cases/get-verification-cooldown.js";
import { listSessions } from "./use-cases/list-sessions.js";
import { login } from "./use-cases/login.js";
import { logout } from "./use-cases/logout.js";
import { markEmailVerified } from "./use-cases/mark-email-verified.js";
import { recoverWithRecoveryCode } from "./use-cases/recover-with-recovery-code.js";
import { refresh } from "./use-cases/refresh.js";
import { register } from "./use-cases/register.js";
import { requestPasswordReset } from "./use-cases/request-password-reset.js";
import { resendVerification } from "./use-cases/resend-verification.js";
import { resetPassword } from "./use-cases/reset-password.js";
import { revokeAllSessions } from "./use-cases/revoke-all-sessions.js";
import { revokeSession } from "./use-cases/revoke-session.js";
import { sendTwoFactorEmailCode } from "./use-cases/send-two-factor-email-code.js";
import { setPassword } from "./use-cases/set-password.js";
import { setPreferredTwoFactorMethod } from "./use-cases/set-preferred-two-factor-method.js";
import { startIdentityProviderLink } from "./use-cases/start-identity-provider-link.js";
import { startIdentityProviderSignIn } from "./use-cases/start-identity-provider-sign-in.js";
import { stepUp } from "./use-cases/step-up.js";
import { unlinkIdentityProvider } from "./use-cases/unlink-identity-provider.js";

import { verifyEmail } from "./use-cases/verify-email.js";

export type { AdminApi, Auth, IdentityProviderApi, SessionApi, TotpSetup } from "./auth.js";
export type { AuthorizationStart } from "./identity/flow.js";
export type { SignedIn } from "./sessions/finish-login.js";
export type { TwoFactorChallenge } from "./two-factor/challenge.js";
export type { IdentityProviderCallbackResult } from "./use-cases/finish-identity-provider-sign-in.js";
export type { LoginResult } from "./use-cases/login.js";
export type { RefreshResult } from "./use-cases/refresh.js";
export type { StepUpResult } from "./use-cases/step-up.js";

/**
 * Validates the options (throwing a `TypeError` on a bad one, or on a configuration that cannot
 * work, such as identity providers without `openid-client` installed, naming the option) and
 * wires the use cases to the ports.
 */
export function createAuth(input: AuthOptions): Auth {
  const options = parseAuthOptions(input);
  if (options.identityProviders.length > 0) assertOpenIdClientInstalled();
  const translator = createTranslator(options.defaultLocale, input.locales);
  const renderer = createEmailRenderer({
    brand: options.email.brand,
    translator,
    templates: options.email.templates,
  });
  const ctx = createContext(options, translator, renderer);
  const startup = startUp(ctx, renderer);
  const sessions = sessionApi(ctx);
  return {
    options,
    identityProviders: identityProviderApi(ctx),
    ready: () => startup,
    idle: () => ctx.background.idle(),
    translator: ctx.translator,
    clock: ctx.clock,
    logger: ctx.logger,
    sessions,
    admin: adminApi(ctx),
    register: (body, request) => register(ctx, body, request),
    login: (body, request) => login(ctx, body, request),
    refresh: (token, body, request) => refresh(ctx, token, body, request),
    logout: (tokens) => logout(ctx, tokens),
    authenticate: (token) => authenticate(ctx, token),
    getCurrentUser: withPrincipal((principal) => getCurrentUser(ctx, principal)),
    listSessions: sessions.list,
    revokeSession: sessions.revoke,
    revokeAllSessions: sessions.revokeAll,
    requestPasswordReset: (body, request) => requestPasswordReset(ctx, body, request),
    getPasswordResetCooldown: (email) => getPasswordResetCooldown(ctx, email),
    resetPassword: (token, body, request) => resetPassword(ctx, token, body, request),
    resendVerification: withPrincipal((principal, request?: Parameters<Auth["resendVerification"]>[1]) =>
      resendVerification(ctx, { principal, request }),
    ),
    getVerificationCooldown: withPrincipal((principal) => getVerificationCooldown(ctx, principal)),
    verifyEmail: (token, request) => verifyEmail(ctx, token, request),
    completeTwoFactorLogin: (token, body, request) => completeTwoFactorLogin(ctx, token, body, request),
    recoverWithRecoveryCode: (token, body, request) => recoverWithRecoveryCode(ctx, token, body, request),
    stepUp: withPrincipal((principal, body: unknown, request?: Parameters<Auth["stepUp"]>[2]) =>
      stepUp(ctx, { principal, request }, body),
    ),
    completeTwoFactorStepUp: withPrincipal(
      (principal, token: string | undefined, body: unknown, request?: Parameters<Auth["stepUp"]>[2]) =>
        completeTwoFactorStepUp(ctx, { principal, request }, token, body),
    ),
    getTotpSetup: withPrincipal((principal, stepUpToken: string | undefined) =>
      getTotpSetup(ctx, { principal, stepUpToken }),
    ),
    confirmTotpSetup: withPrincipal(
      (principal, stepUpToken: string | undefined, body: unknown, request?: Parameters<Auth["stepUp"]>[2]) =>
        confirmTotpSetup(ctx, { principal, stepUpToken, request }, body),
    ),
    disableTwoFactorMethod: withPrincipal(
      (
        principal,
        stepUpToken: string | undefined,
        method: Parameters<Auth["disableTwoFactorMethod"]>[2],
        request?: Parameters<Auth["stepUp"]>[2],
      ) => disableTwoFactorMethod(ctx, { principal, stepUpToken, request }, method),
    ),
    sendTwoFactorEmailCode: async (who, request) =>
      sendTwoFactorEmailCode(ctx, "principal" in who ? { principal: issued(who.principal) } : who, request),
    getTwoFactorEmailCooldown: withPrincipal((principal) => getTwoFactorEmailCooldown(ctx, principal)),
    enableEmailTwoFactor: withPrincipal(
      (principal, stepUpToken: string | undefined, body: unknown, request?: Parameters<Auth["stepUp"]>[2]) =>
        enableEmailTwoFactor(ctx, { principal, stepUpToken, request }, body),
    ),
    setPreferredTwoFactorMethod: withPrincipal((principal, stepUpToken: string | undefined, body: unknown) =>
      setPreferredTwoFactorMethod(ctx, { principal, stepUpToken }, body),
    ),
  };
}

/** The ports, keys and services every use case gets. */
function createContext(
  options: ResolvedAuthOptions,
  translator: Translator,
  renderer: EmailRenderer,
): AuthContext {
  const clock = options.clock ?? systemClock;
  const hasher = options.passwordHasher ?? createArgon2Hasher();
  const logger = options.logger ?? consoleLogger;
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
  const background = createBackgroundTasks(logger);
  return {
    options,
    users: options.stores.users,
    cooldowns: options.stores.cooldowns,
    sessions: options.stores.sessions,
    allowlist: options.stores.allowlist,
    singleUseTokens: options.stores.singleUseTokens,
    identities: options.stores.identities,
    relyingParties: createRelyingParties(options.identityProviders, { clock }),
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
    background,
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
      background,
    }),
    generateId: options.generateId ?? randomId,
    dummyHash() {
      dummyHash ??= hasher.hash(randomToken(24)).catch((error: unknown) => {
        dummyHash = undefined;
        throw error;
      });
      return dummyHash;
    },
  };
}

/**
 * Start-up work, off the request path: the dummy hash (so the first unknown-email login costs
 * the same as any other) and the MJML templates (compiled once; a send waits if it comes first).
 */
function startUp(ctx: AuthContext, renderer: EmailRenderer): Promise<void> {
  const { options, logger } = ctx;
  return Promise.all([
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
    // openid-client is an optional peer dependency: load it now when a provider needs it.
    options.identityProviders.length > 0
      ? loadOpenIdClient().catch((error: unknown) =>
          logger.error(
            { event: "identity_provider.client_missing", err: String((error as Error).cause ?? error) },
            "identityProviders are configured but openid-client cannot be loaded (npm install openid-client)",
          ),
        )
      : undefined,
  ]).then(() => undefined);
}

/** Only principals `authenticate` or `sessions.create` issued reach a use case. */
function issued(principal: Principal): Principal {
  if (!isIssuedPrincipal(principal)) throw new AuthError("AUTHENTICATION_REQUIRED");
  return principal;
}

/** A principal check that rejects (as the use cases do) instead of throwing synchronously. */
const withPrincipal =
  <A extends unknown[], R>(run: (principal: Principal, ...args: A) => Promise<R>) =>
  async (principal: Principal, ...args: A): Promise<R> =>
    run(issued(principal), ...args);

function sessionApi(ctx: AuthContext): SessionApi {
  return {
    create: (body: unknown, request?: Parameters<typeof createSession>[2]) =>
      createSession(ctx, body, request),
    list: withPrincipal((principal) => listSessions(ctx, principal)),
    revoke: withPrincipal((principal, sessionId: string) => revokeSession(ctx, principal, sessionId)),
    revokeAll: withPrincipal((principal) => revokeAllSessions(ctx, principal)),
  };
}

function identityProviderApi(ctx: AuthContext): IdentityProviderApi {
  return {
    list: () => [...ctx.relyingParties.values()].map(({ name, displayName }) => ({ name, displayName })),
    authorize: async (provider, input = {}) =>
      startIdentityProviderSignIn(ctx, provider, {
        returnTo: input.returnTo,
        stepUp: input.stepUp ? issued(input.stepUp) : undefined,
      }),
    link: withPrincipal((principal, stepUpToken: string | undefined, provider: string, input = {}) =>
      startIdentityProviderLink(ctx, { principal, stepUpToken }, provider, input),
    ),
    callback: (provider, input, request) => finishIdentityProviderSignIn(ctx, provider, input, request),
    unlink: withPrincipal(
      (
        principal,
        stepUpToken: string | undefined,
        provider: string,
        request?: Parameters<Auth["stepUp"]>[2],
      ) => unlinkIdentityProvider(ctx, { principal, stepUpToken, request }, provider),
    ),
  };
}

function adminApi(ctx: AuthContext): AdminApi {
  return {
    createUser: (body) => createUser(ctx, body),
    setPassword: (userId, password) => setPassword(ctx, userId, password),
    markEmailVerified: (userId) => markEmailVerified(ctx, userId),
    deleteUser: (userId) => deleteUser(ctx, userId),
  };
}
