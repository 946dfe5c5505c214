/**
 * Setup shared by the core's own tests. Not part of the package: only `index.ts` is built, and
 * nothing but `*.test.ts` files imports this one.
 */
import { randomBytes } from "node:crypto";
import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createMemoryStores } from "@portcullis/store-memory";
import { createFakeClock } from "@portcullis/testing";
import type { LoginInput } from "./create-auth/auth.js";
import { type Auth, createAuth } from "./create-auth/create-auth.js";
import { createArgon2Hasher } from "./hashing/argon2-hasher.js";
import type { RequestContext } from "./model.js";
import type { AuthOptionFields } from "./options/options.js";
import type { WebhooksOptions } from "./options/webhook-options.js";
import type { AuditDraft } from "./ports/audit-log-store.js";
import { type Logger, silentLogger } from "./ports/logger.js";
import type { EmailMessage, Mailer } from "./ports/mailer.js";
import type { TwoFactorSettings, UserRecord } from "./ports/user-store.js";
import type { WebhookDisabledReason, WebhookEndpoint } from "./ports/webhook-store.js";
import { createWebhookEngine, type WebhookEngineDeps } from "./webhooks/engine.js";

/** Random (`createAuth` refuses placeholders, repeats and sequences): a made-up one would not start. */
export const TEST_SECRET = "test-secret--Xqhj7KKuQIZYk1ZmwEfIcFYTaXSOki1lZ3AYb8Kqlg";

export const PASSWORD = "correct horse battery staple";

export const APP_ORIGIN = "https://app.example.test";

/** The brand of the email tests (the option's defaults, spelled out). */
export const BRAND = {
  name: "Acme",
  primaryColor: "#4f46e5",
  textColor: "#111827",
  backgroundColor: "#f3f4f6",
  logoUrl: null,
};

/** The frontend pages of the email tests (the option's defaults, spelled out). */
export const LINKS = {
  verifyEmail: "/verify-email",
  resetPassword: "/reset-password",
  forgotPassword: "/forgot-password",
  signIn: "/login",
  signUp: "/signup",
  securitySettings: "/settings/security",
  emailSignIn: "/sign-in/email",
  confirmEmailChange: "/confirm-email-change",
  acceptInvitation: "/invitations/accept",
};

/** Email codes on, preferred; no TOTP, no recovery codes. */
export const EMAIL_TWO_FACTOR: TwoFactorSettings = {
  methods: ["email"],
  preferredMethod: "email",
  totpSecretEncrypted: null,
  recoveryCodeHashes: [],
};

/** The settled promise as its error's `code`, or "OK". */
export const code = (promise: Promise<unknown>) =>
  promise.then(
    () => "OK",
    (error) => error.code,
  );

/** `auth.login` for accounts without 2FA: the signed-in result, or a thrown error. */
export async function signIn(auth: Auth, input: LoginInput, request?: RequestContext) {
  const result = await auth.login({ request }, input);
  if (result.twoFactorRequired) throw new Error("second factor required");
  return result;
}

/** Argon2id at its cheapest, so tests hash fast. */
export const fastHasher = () => createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 });

/** A verified account that signs in only with an identity provider: no password, no 2FA. */
export const identityProviderUser = (id: string, email: string, provider = "github"): UserRecord => ({
  id,
  email,
  emailVerified: true,
  name: null,
  passwordHash: null,
  identityProviders: [provider],
  twoFactor: { methods: [], preferredMethod: null, totpSecretEncrypted: null, recoveryCodeHashes: [] },
  createdAt: 0,
});

/** A logger that keeps every entry as a JSON line (`level`, the fields, and `message`). */
export function createLineLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const logger = Object.fromEntries(
    (["debug", "info", "warn", "error"] as const).map((level) => [
      level,
      (object: object, message?: string) => lines.push(JSON.stringify({ level, ...object, message })),
    ]),
  ) as unknown as Logger;
  return { logger, lines };
}

export interface TestAuthOptions extends Partial<AuthOptionFields> {
  /** Epoch milliseconds the fake clock starts at. Default: 2026-01-01T00:00:00Z. */
  start?: number;
}

/**
 * A `createAuth` over memory stores (no sweep timer) on a fake clock, with a mailer that keeps
 * what it sends (set `mailer.fail` to make it throw), `APP_ORIGIN`, no logs and a fast hasher;
 * `options` override any of these.
 */
export function createTestAuth({ start = Date.UTC(2026, 0, 1), ...options }: TestAuthOptions = {}) {
  const clock = createFakeClock({ start });
  const stores = createMemoryStores({ clock, sweepIntervalMs: 0 });
  const sent: EmailMessage[] = [];
  const mailer: Mailer & { fail?: Error | undefined } = {
    async send(message) {
      if (mailer.fail) throw mailer.fail;
      sent.push(message);
    },
  };
  const auth = createAuth({
    secret: TEST_SECRET,
    stores,
    clock,
    mailer,
    appOrigin: APP_ORIGIN,
    logger: silentLogger,
    passwordHasher: fastHasher(),
    ...options,
  });
  return { auth, stores, clock, sent, mailer };
}

/**
 * A `createAuth` over memory stores, without email, with every optional area on (the back office,
 * organizations, API keys, webhooks not delivering), so that every route exists.
 */
export function createEveryRouteAuth() {
  return createAuth({
    secret: TEST_SECRET,
    stores: createMemoryStores({ sweepIntervalMs: 0 }),
    email: { enabled: false },
    admin: { authorize: () => false },
    organizations: { permissions: ["project:read"] },
    apiKeys: {},
    webhooks: { deliver: false },
  });
}

/**
 * `createTestAuth` with organizations, the back office (`admin@…`) and webhooks on (not delivering
 * unless `webhooks` says so), on a clock at the real time, no login alerts; `options` override any
 * of these. `user(email)` makes a verified user, signed in, with a step-up token.
 */
export function createWebhooksTestAuth(webhooks: WebhooksOptions = {}, options: TestAuthOptions = {}) {
  const env = createTestAuth({
    start: Date.now(),
    email: { loginAlerts: false },
    organizations: { permissions: ["project:read"] },
    admin: { authorize: (_principal, user) => user.email.startsWith("admin") },
    webhooks: { deliver: false, ...webhooks },
    ...options,
  });
  const user = async (email: string) => {
    await env.auth.host.createUser({}, { email, password: PASSWORD, emailVerified: true });
    const { accessToken } = await signIn(env.auth, { email, password: PASSWORD });
    const principal = await env.auth.authenticate({ token: accessToken });
    const stepped = await env.auth.stepUp({ principal }, { password: PASSWORD });
    if (stepped.twoFactorRequired) throw new Error("2FA");
    return { principal, accessToken, stepUpToken: stepped.stepUpToken };
  };
  return { ...env, user };
}

/** HTTP servers on 127.0.0.1 for the webhook tests; `closeAll`, called in `afterEach`, closes them. */
export function createTestServers() {
  const servers: Server[] = [];
  /** A server answering with `listener`, and the URL of its `/hook`. */
  const listen = async (listener: RequestListener) => {
    const server = createServer(listener);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook` };
  };
  const closeAll = async () => {
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  };
  return { listen, closeAll };
}

/** The webhook engine's options in its tests: private addresses allowed, the real back-off, a round a second. */
export const WEBHOOK_ENGINE_OPTIONS = {
  allowPrivateNetworks: true,
  retryScale: 1,
  pollIntervalMs: 1_000,
  gatherMs: 0,
  leaseMs: 30_000,
  timeoutMs: 2_000,
  maxEndpoints: 20,
  deliver: true,
};

/** An endpoint secret as `createWebhookEngineFixture` seals it, valid until `expiresAt` (null: for good). */
export const sealedSecret = (secret: string, expiresAt: number | null = null) => ({
  sealed: `sealed:${secret}`,
  expiresAt,
});

/**
 * Memory stores on a fake clock; `emit` appends audit entries (u1's `login.succeeded` unless
 * `fields` say otherwise), `addEndpoint` adds an endpoint (all events, no secret, a closed port
 * unless `fields` say otherwise), and `engine` makes an engine over them (`overrides` on
 * `WEBHOOK_ENGINE_OPTIONS`, opening `sealedSecret`s, silent, the endpoints it disables kept in
 * `disabled`; `deps` replace any of these).
 */
export function createWebhookEngineFixture(overrides: Partial<typeof WEBHOOK_ENGINE_OPTIONS> = {}) {
  const clock = createFakeClock();
  const stores = createMemoryStores({ clock, sweepIntervalMs: 0 });
  const options = { ...WEBHOOK_ENGINE_OPTIONS, ...overrides };
  const disabled: { id: string; enabled: boolean; reason: WebhookDisabledReason }[] = [];
  const emit = (count: number, fields: Partial<AuditDraft> = {}) => {
    const drafts = Array.from({ length: count }, () => ({
      id: randomBytes(16).toString("hex"),
      at: clock.now(),
      type: "login.succeeded",
      actorType: "user" as const,
      actorId: "u1",
      userId: "u1",
      organizationId: null,
      sessionId: null,
      ip: null,
      userAgent: null,
      reason: null,
      ...fields,
    }));
    return stores.auditLog.append(drafts, () => "hash");
  };
  const addEndpoint = async (fields: Partial<WebhookEndpoint> = {}) => {
    const endpoint: WebhookEndpoint = {
      id: randomBytes(8).toString("hex"),
      organizationId: null,
      url: "http://127.0.0.1:9/hook",
      events: ["*"],
      enabled: true,
      disabledReason: null,
      secrets: [],
      createdBy: null,
      createdAt: clock.now(),
      cursor: 0,
      ...fields,
    };
    await stores.webhooks.createEndpoint(endpoint, { maxPerScope: 100 });
    return endpoint;
  };
  const engine = (deps: Partial<WebhookEngineDeps> = {}) =>
    createWebhookEngine({
      store: stores.webhooks,
      auditLog: stores.auditLog,
      openSecret: async (sealed) => sealed.slice("sealed:".length),
      options,
      clock,
      logger: silentLogger,
      onDisabled: async (endpoint, reason) => {
        disabled.push({ id: endpoint.id, enabled: endpoint.enabled, reason });
      },
      newId: () => randomBytes(8).toString("hex"),
      ...deps,
    });
  return { clock, stores, options, disabled, emit, addEndpoint, engine };
}
