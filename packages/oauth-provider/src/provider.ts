import type {
  Auth,
  OAuthProviderPlugin,
  OAuthStore,
  Route,
  SecurityEvent,
  SigningKeyStore,
  SingleUseTokenStore,
} from "@portcullis/core";
import { type ClientRegistry, createClientRegistry, type OAuthClientInput } from "./clients.js";
import type { Lifetimes, ProviderContext, ProviderPages } from "./provider-context.js";
import { metadataOf, providerRoutes } from "./routes.js";
import { createKeySealer } from "./sealed-key.js";
import { createSigningKeyRing, type SigningAlgorithm } from "./signing-keys.js";
import { createRingVerifier } from "./verify.js";

/** `createOAuthProvider`'s options (docs/oauth-provider.md). */
export interface OAuthProviderOptions {
  /**
   * Where the provider keeps its state: each store package's `oauth` and `signingKeys` (e.g.
   * `createSqlStores(…).oauth`). Codes and consent requests go to the host's `singleUseTokens`.
   */
  stores: { oauth: OAuthStore; signingKeys: SigningKeyStore; singleUseTokens?: SingleUseTokenStore };
  /** Clients to create or update at start-up (the examples read them from `OAUTH_CLIENTS_FILE`). */
  clients?: OAuthClientInput[];
  /** Scopes of the host's APIs that clients may ask for, besides `openid profile email offline_access`. */
  scopes?: string[];
  /** Resource servers (RFC 8707) tokens may be asked for, besides URLs on `appOrigin`. */
  resources?: string[];
  /** Lifetimes in seconds: access token 600, ID token 600, refresh token 30 days, consent request 600, device code 600. */
  lifetimes?: Partial<Omit<Lifetimes, "code">>;
  /** Paths of the host's pages on `appOrigin`: sign-in `/login`, consent `/oauth/consent`, device `/device`. */
  pages?: Partial<ProviderPages>;
  /** RFC 7591 dynamic registration of public clients at `<prefix>/oauth2/register`. Default false. */
  allowDynamicRegistration?: boolean;
  /** The signing keys' algorithm (default `ES256`) and rotation (default every 30 days). */
  signing?: { algorithm?: SigningAlgorithm; rotationDays?: number };
}

const DEFAULT_LIFETIMES: Lifetimes = {
  accessToken: 600,
  idToken: 600,
  refreshToken: 30 * 24 * 3600,
  code: 60,
  consentRequest: 600,
  device: 600,
};

/** The events that end every grant of the user (docs/oauth-provider.md): reset, "sign out everywhere", lock, deletion. */
export function endsGrants(event: SecurityEvent): boolean {
  switch (event.type) {
    case "password_reset.completed":
    case "user.locked":
    case "user.deleted":
    case "user.deprovisioned":
    case "admin.sessions_revoked":
      return true;
    case "session.revoked":
      return event.reason?.startsWith("revoked_all") ?? false;
    default:
      return false;
  }
}

/**
 * The registry, its `clients` option seeded first: every read waits for the seeding (a settled
 * promise afterwards), so the first request finds them. A failed seeding is logged; the clients
 * already stored still work.
 */
function seededRegistry(
  auth: Auth,
  registry: ClientRegistry,
  clients: OAuthClientInput[] | undefined,
): ClientRegistry {
  if (!clients?.length) return registry;
  const seeded = registry.seed(clients).then(
    () => undefined,
    (error: unknown) =>
      auth.logger.error(
        { event: "oauth_provider.seed_failed", err: String(error) },
        "seeding OAuth clients failed",
      ),
  );
  return {
    ...registry,
    get: async (clientId) => {
      await seeded;
      return registry.get(clientId);
    },
    authenticate: async (credentials) => {
      await seeded;
      return registry.authenticate(credentials);
    },
  };
}

/** Revokes every grant of the user; for a deleted account, also forgets its consents. */
async function endGrants(oauth: OAuthStore, userId: string, now: number, forget: boolean): Promise<void> {
  await oauth.revokeUserOAuthGrants(userId, now);
  if (!forget) return;
  for (const consent of await oauth.listOAuthConsents(userId))
    await oauth.deleteOAuthConsent(userId, consent.clientId);
}

/** The provider's context for `auth`, made once by `setUp`. */
function contextFor(auth: Auth, options: OAuthProviderOptions): ProviderContext {
  const appOrigin = auth.options.appOrigin as string;
  const lifetimes = { ...DEFAULT_LIFETIMES, ...options.lifetimes, code: DEFAULT_LIFETIMES.code };
  const secret = auth.options.secret;
  const clock = auth.clock;
  return {
    auth,
    issuer: `${appOrigin}${auth.options.basePath}`,
    appOrigin,
    oauth: options.stores.oauth,
    tokens: options.stores.singleUseTokens ?? auth.options.stores.singleUseTokens,
    ring: createSigningKeyRing({
      store: options.stores.signingKeys,
      secret,
      tokenLifetimeSeconds: Math.max(lifetimes.accessToken, lifetimes.idToken),
      clock,
      ...(options.signing?.algorithm ? { algorithm: options.signing.algorithm } : {}),
      ...(options.signing?.rotationDays ? { rotationDays: options.signing.rotationDays } : {}),
    }),
    clients: seededRegistry(
      auth,
      createClientRegistry({ store: options.stores.oauth, secret, clock }),
      options.clients,
    ),
    consentSealer: createKeySealer(secret, "portcullis oauth consent request v1"),
    scopes: options.scopes ?? [],
    resources: options.resources ?? [],
    lifetimes,
    pages: { login: "/login", consent: "/oauth/consent", device: "/device", ...options.pages },
    allowDynamicRegistration: options.allowDynamicRegistration ?? false,
    now: () => clock.now(),
  };
}

/**
 * Portcullis as an OAuth 2.1 / OpenID Connect provider: pass it as `createAuth`'s
 * `oauthProvider`; its routes are mounted under `<prefix>/oauth2/` by every adapter.
 * @example
 * ```ts
 * import { createAuth } from "@portcullis/core";
 * import { createOAuthProvider } from "@portcullis/oauth-provider";
 * import { createMemoryStores } from "@portcullis/store-memory";
 *
 * const stores = createMemoryStores();
 * const auth = createAuth({
 *   secret: process.env.AUTH_SECRET ?? "",
 *   appOrigin: "https://app.example.com",
 *   stores,
 *   email: { enabled: false },
 *   oauthProvider: createOAuthProvider({
 *     stores: { oauth: stores.oauth, signingKeys: stores.signingKeys },
 *     scopes: ["projects:read"],
 *     clients: [
 *       {
 *         clientId: "cli",
 *         name: "The command line",
 *         redirectUris: ["http://127.0.0.1:8765/callback"],
 *         scopes: ["openid", "profile", "email", "projects:read"],
 *       },
 *     ],
 *   }),
 * });
 * ```
 */
export function createOAuthProvider(options: OAuthProviderOptions): OAuthProviderPlugin<Auth, Route> {
  let context: ProviderContext | undefined;
  return {
    setUp(auth) {
      const ctx = contextFor(auth, options);
      context = ctx;
      if (options.clients?.length) {
        // Seeded before the first request needs a client: a failure is logged and retried by the next start.
        void ctx.clients
          .seed(options.clients)
          .catch((error: unknown) =>
            auth.logger.error(
              { event: "oauth_provider.seed_failed", err: String(error) },
              "seeding OAuth clients failed",
            ),
          );
      }
      return {
        routes: providerRoutes(ctx),
        verifyAccessToken: createRingVerifier(ctx),
        metadata: () => metadataOf(ctx),
      };
    },
    observe(event) {
      if (context === undefined || event.userId === null || !endsGrants(event)) return undefined;
      return endGrants(context.oauth, event.userId, event.time, event.type === "user.deleted");
    },
  };
}
