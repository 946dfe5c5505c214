import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { closeServer } from "./listening-server.js";

/** An account at the test provider: what its ID token and userinfo say. */
export interface TestOidcAccount {
  email: string;
  emailVerified: boolean;
  name?: string;
}

/** A client registered at the test provider. */
export interface TestOidcClient {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
}

export interface TestOidcProviderOptions {
  /** The relying party under test; PKCE is required of it. */
  client: TestOidcClient;
  /** Another client (another audience); PKCE is optional for it. Default: none. */
  otherClient?: TestOidcClient;
  /** Lifetime of ID tokens in seconds (default 3600). */
  idTokenTtlSeconds?: number;
}

export interface TestOidcProvider {
  /** `http://127.0.0.1:<port>`. */
  issuer: string;
  /** Adds or replaces an account (its id is the `sub` of its tokens). */
  setAccount(id: string, account: TestOidcAccount): void;
  /** Stops the server (and its open connections). */
  close(): Promise<void>;
}

/**
 * The header a test browser sends to the provider to say who signs in: the provider's own
 * login and consent pages are replaced by this scripted interaction, which logs the account in
 * and grants what the client asked for.
 */
export const TEST_ACCOUNT_HEADER = "x-test-account";

/**
 * A real OpenID Connect provider (`oidc-provider`, a certified implementation) on a free port of
 * 127.0.0.1, for end-to-end tests of relying parties: discovery, authorization code with PKCE,
 * signed ID tokens, userinfo. Interactions are scripted: `GET /interaction/:uid` logs in the
 * account named by the `x-test-account` request header, then grants consent. Needs the
 * `oidc-provider` package (an optional peer dependency of @portcullis/testing).
 */
export async function startTestOidcProvider(options: TestOidcProviderOptions): Promise<TestOidcProvider> {
  const accounts = new Map<string, TestOidcAccount>();
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = await createProvider(issuer, options, accounts);
  const interact = scriptedInteraction(provider, accounts);
  const callback = provider.callback();
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    if (req.method === "GET" && /^\/interaction\/[^/]+$/.test((req.url ?? "").split("?")[0] ?? "")) {
      interact(req, res).catch(() => {
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
      return;
    }
    callback(req, res);
  });

  return {
    issuer,
    setAccount: (id, account) => accounts.set(id, account),
    close: () => closeServer(server),
  };
}

type OidcProvider = InstanceType<typeof import("oidc-provider").default>;

const clientMetadata = (registered: TestOidcClient) => ({
  client_id: registered.clientId,
  client_secret: registered.clientSecret,
  redirect_uris: registered.redirectUris,
  grant_types: ["authorization_code"],
  response_types: ["code" as const],
  token_endpoint_auth_method: "client_secret_post" as const,
});

/** The provider at `issuer`: the test clients, the accounts' claims, interactions at `/interaction/:uid`. */
async function createProvider(
  issuer: string,
  options: TestOidcProviderOptions,
  accounts: ReadonlyMap<string, TestOidcAccount>,
): Promise<OidcProvider> {
  const { default: Provider } = await import("oidc-provider");
  const provider = new Provider(issuer, {
    clients: [
      clientMetadata(options.client),
      ...(options.otherClient ? [clientMetadata(options.otherClient)] : []),
    ],
    pkce: { required: (_ctx, registered) => registered.clientId === options.client.clientId },
    cookies: { keys: [randomBytes(32).toString("base64url")] },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    ttl: { IdToken: options.idTokenTtlSeconds ?? 3600 },
    async findAccount(_ctx, id) {
      const account = accounts.get(id);
      if (!account) return undefined;
      return {
        accountId: id,
        claims: async () => ({
          sub: id,
          email: account.email,
          email_verified: account.emailVerified,
          name: account.name ?? id,
        }),
      };
    },
  });
  // Quiet: expected failures (a replayed code) are part of the tests.
  provider.on("server_error", () => {});
  return provider;
}

/**
 * `GET /interaction/:uid`: logs in the account the `x-test-account` header names, then grants
 * the scopes the client asked for.
 */
function scriptedInteraction(provider: OidcProvider, accounts: ReadonlyMap<string, TestOidcAccount>) {
  return async (req: IncomingMessage, res: ServerResponse) => {
    const details = await provider.interactionDetails(req, res);
    if (details.prompt.name === "login") {
      const accountId = String(req.headers[TEST_ACCOUNT_HEADER] ?? "");
      if (!accounts.has(accountId)) {
        res.writeHead(400).end("unknown test account");
        return;
      }
      await provider.interactionFinished(
        req,
        res,
        { login: { accountId } },
        { mergeWithLastSubmission: false },
      );
      return;
    }
    const accountId = details.session?.accountId ?? "";
    const grant = details.grantId
      ? ((await provider.Grant.find(details.grantId)) ?? new provider.Grant({ accountId, clientId: "" }))
      : new provider.Grant({ accountId, clientId: String(details.params.client_id) });
    grant.addOIDCScope(String(details.params.scope ?? "openid"));
    const grantId = await grant.save();
    await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  };
}
