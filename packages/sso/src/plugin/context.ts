import { createHash, randomBytes } from "node:crypto";
import { resolveTxt } from "node:dns/promises";
import {
  type Auth,
  AuthError,
  createGuardedFetch,
  createSealer,
  type HttpResponse,
  type RelyingParty,
  type ScimStore,
  type Sealer,
  type SingleUseTokenStore,
  type SsoRouteKit,
  type SsoStore,
} from "@portcullis/core";

/** What `createSso` takes (docs/sso.md, "Setting it up"). */
export interface SsoOptions {
  /** Connections, domains and used assertions: `createMemoryStores().sso`, `createRedisStores(…).sso`, `createSqlStores(…).sso`. */
  store: SsoStore;
  /**
   * The connections' SCIM directories (users and groups): `createMemoryStores().scim`,
   * `createSqlStores(…).scim`. Without it the SCIM routes (`/scim/v2/…`) are not served.
   */
  scim?: ScimStore;
  /** How long a started sign-in may wait for the identity provider's answer, in seconds; default 600. */
  requestTtlSeconds?: number;
  /** Clock difference tolerated with an identity provider, in seconds, on each time bound; default 120. */
  clockSkewSeconds?: number;
  /**
   * The DNS TXT lookup of a domain's verification record (`node:dns/promises`'s `resolveTxt` by
   * default): the records of a name, each as its strings. A test or a host with its own resolver
   * passes another.
   */
  resolveTxt?: (name: string) => Promise<string[][]>;
  /** Where the browser lands after a sign-in that named no `returnTo`, a path on `appOrigin`; default "/". */
  afterSignInPath?: string;
  /**
   * Lets OpenID Connect connections name an issuer over http or on a loopback, private or
   * link-local address (a provider on the developer's machine, a test); never in production,
   * where an organization's administrator could otherwise make the server call internal
   * addresses. Default false.
   */
  allowPrivateNetworks?: boolean;
}

/** Everything a route of the plugin may touch, made once in `setUp` (the kit when the routes are). */
export interface SsoContext {
  auth: Auth;
  store: SsoStore;
  scim: ScimStore | undefined;
  tokens: SingleUseTokenStore;
  kit: SsoRouteKit;
  /** `<appOrigin><basePath>`: where the plugin's routes are, as the identity provider reaches them. */
  base: string;
  basePath: string;
  requestTtlMs: number;
  skewMs: number;
  resolveTxt: (name: string) => Promise<string[][]>;
  afterSignInPath: string;
  /** Whether OpenID Connect issuers may be on http and non-public addresses (`allowPrivateNetworks`). */
  allowPrivateNetworks: boolean;
  /** Seals the connections' client secrets for the store (purpose `portcullis sso client secret v1`). */
  sealer: Sealer;
  /** Every request to an OpenID Connect provider: the address guard's fetch (`createGuardedFetch`). */
  fetch: ReturnType<typeof createGuardedFetch>;
  /** The OpenID Connect connections' relying parties, by connection id and version (`relyingPartyOf`). */
  parties: Map<string, RelyingParty>;
  now(): number;
}

/** Resolves the options against the finished `Auth`. */
export function ssoContext(auth: Auth, options: SsoOptions, kit: SsoRouteKit): SsoContext {
  const { appOrigin, basePath, stores, secret } = auth.options;
  const allowPrivateNetworks = options.allowPrivateNetworks ?? false;
  return {
    auth,
    store: options.store,
    scim: options.scim,
    tokens: stores.singleUseTokens,
    kit,
    base: `${new URL(appOrigin ?? "http://localhost").origin}${basePath}`,
    basePath,
    requestTtlMs: (options.requestTtlSeconds ?? 600) * 1000,
    skewMs: (options.clockSkewSeconds ?? 120) * 1000,
    resolveTxt: options.resolveTxt ?? resolveTxt,
    afterSignInPath: options.afterSignInPath ?? "/",
    allowPrivateNetworks,
    sealer: createSealer(secret, "portcullis sso client secret v1"),
    fetch: createGuardedFetch({ allowPrivateNetworks }),
    parties: new Map(),
    now: () => auth.clock.now(),
  };
}

/** The service provider's own names for a connection: its entity id (the metadata URL) and ACS URL. */
export function serviceProvider(ctx: Pick<SsoContext, "base">, connectionId: string) {
  const at = `${ctx.base}/sso/saml/${encodeURIComponent(connectionId)}`;
  return { entityId: `${at}/metadata`, acsUrl: `${at}/acs`, metadataUrl: `${at}/metadata` };
}

/** SHA-256 of a token, base64url: what the stores keep instead of tokens. */
export const hashOf = (value: string) => createHash("sha256").update(value).digest("base64url");

/** 32 random bytes, base64url (43 characters). */
export const randomToken = () => randomBytes(32).toString("base64url");

/** A JSON answer that no cache keeps. */
export function jsonAnswer(status: number, body: unknown, cookies: string[] = []): HttpResponse {
  const text = JSON.stringify(body);
  return {
    status,
    headers: {
      "content-type": "application/json; charset=utf-8",
      "cache-control": "no-store",
      "content-length": String(Buffer.byteLength(text)),
    },
    cookies,
    body: text,
  };
}

/** A redirect (302, or 303 after a POST) to `location`, which no cache keeps. */
export function redirect(location: string, cookies: string[] = [], status = 302): HttpResponse {
  return {
    status,
    headers: { location, "cache-control": "no-store", "content-length": "0" },
    cookies,
    body: null,
  };
}

/** A store call; its failure is `DATABASE_FAILURE` (with the cause), never a grant. */
export async function stored<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    throw new AuthError("DATABASE_FAILURE", { cause: error });
  }
}
