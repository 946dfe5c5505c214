import {
  AuthError,
  createRelyingParty,
  DEFAULT_OIDC_SCOPES,
  GuardedFetchError,
  type OidcConnectionSettings,
  type RelyingParty,
  type SsoConnectionRecord,
  ValidationError,
} from "@portcullis/core";
import type { SsoContext } from "./context.js";
import { invalid, text } from "./input.js";

/** The one redirect URI of every OpenID Connect connection (the `state` names the request, and so the connection). */
export const oidcCallbackUrl = (ctx: Pick<SsoContext, "base">) => `${ctx.base}/sso/oidc/callback`;

/** How many connections' relying parties (each with its provider's discovery document) are kept. */
const KEPT_PARTIES = 200;

/**
 * The relying party of an OpenID Connect connection, made once per version of the connection
 * (its discovery document is read once and kept), the oldest dropped past 200. Its client secret
 * is opened here, never kept elsewhere; every request it makes goes through the guarded fetch.
 */
export function relyingPartyOf(ctx: SsoContext, connection: SsoConnectionRecord): RelyingParty {
  const settings = connection.oidc;
  if (settings === null) throw new AuthError("NOT_FOUND");
  const key = `${connection.id}:${connection.updatedAt}`;
  const kept = ctx.parties.get(key);
  if (kept !== undefined) return kept;
  const clientSecret = ctx.sealer.open(settings.sealedClientSecret);
  // A secret no key of this deployment opens (the host's `secret` replaced without the old one
  // kept in the list) cannot sign in anyone; the administrator adds the connection again.
  if (clientSecret === null) throw new AuthError("IDENTITY_PROVIDER_FAILURE");
  const party = partyFor(ctx, settings.issuer, settings.clientId, clientSecret);
  if (ctx.parties.size >= KEPT_PARTIES) ctx.parties.delete(ctx.parties.keys().next().value ?? "");
  ctx.parties.set(key, party);
  return party;
}

/** A relying party for an issuer, with the connection's client, through the guarded fetch. */
function partyFor(ctx: SsoContext, issuer: string, clientId: string, clientSecret: string): RelyingParty {
  return createRelyingParty(
    {
      type: "oidc",
      name: "sso",
      issuer,
      clientId,
      clientSecret,
      scopes: [...DEFAULT_OIDC_SCOPES],
      allowInsecureRequests: ctx.allowPrivateNetworks,
      fetch: ctx.fetch as typeof fetch,
    },
    { clock: ctx.auth.clock },
  );
}

/** What went wrong reading an issuer's discovery document, in words for its administrator. */
function discoveryProblem(error: unknown): string {
  const cause = error instanceof AuthError ? error.cause : error;
  if (cause instanceof GuardedFetchError) return cause.message;
  if (cause instanceof Error && cause.message !== "") return cause.message.slice(0, 300);
  return "it did not answer";
}

/**
 * An OpenID Connect connection's settings from a create's body (`issuer`, `clientId`,
 * `clientSecret`), checked (`VALIDATION_FAILED`): the issuer an https URL (http only with
 * `allowPrivateNetworks`) without query, fragment, credentials or the discovery path. The secret
 * is sealed at once. The issuer is not contacted here (`checkIssuer` does, once the caller is
 * known to be allowed).
 */
export function oidcSettings(ctx: SsoContext, body: Record<string, unknown>): OidcConnectionSettings {
  const issuer = text(body, "issuer", 2048);
  const url = URL.canParse(issuer) ? new URL(issuer) : null;
  const scheme = url?.protocol === "https:" || (url?.protocol === "http:" && ctx.allowPrivateNetworks);
  if (url === null || !scheme || url.search !== "" || url.hash !== "" || url.username !== "" || url.password)
    throw invalid(
      "issuer",
      "must be the identity provider's issuer, an https URL such as https://idp.example.com",
    );
  if (url.pathname.includes("/.well-known/"))
    throw invalid("issuer", "must be the issuer, without /.well-known/openid-configuration");
  const clientSecret = text(body, "clientSecret", 4096);
  return {
    issuer,
    clientId: text(body, "clientId", 512),
    sealedClientSecret: ctx.sealer.seal(clientSecret),
  };
}

/**
 * Reads the issuer's discovery document through the guarded fetch (an address that is not
 * public is refused unless `allowPrivateNetworks`), so an administrator learns at once that a
 * connection cannot work: `VALIDATION_FAILED` at `issuer` saying why.
 */
export async function checkIssuer(ctx: SsoContext, settings: OidcConnectionSettings): Promise<void> {
  const secret = ctx.sealer.open(settings.sealedClientSecret) ?? "";
  try {
    await partyFor(ctx, settings.issuer, settings.clientId, secret).discover();
  } catch (error) {
    // Without a rule, so that the answer carries this message (the reason) as written.
    const message = `its discovery document could not be read: ${discoveryProblem(error)}`;
    throw new ValidationError([{ path: "issuer", message }]);
  }
}
