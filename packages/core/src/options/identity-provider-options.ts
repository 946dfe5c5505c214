import { z } from "zod";
import { isBareHttpUrl } from "../support/http-url.js";

/** The scopes an OpenID Connect provider is asked for unless configured otherwise. */
export const DEFAULT_OIDC_SCOPES = ["openid", "email", "profile"] as const;

const name = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9_-]{0,31}$/,
    "must be 1-32 lower-case letters, digits, - or _ (it is a URL segment)",
  );
const scope = z.string().regex(/^[\x21\x23-\x5B\x5D-\x7E]+$/, "must be a single OAuth scope");
const scopes = (fallback: readonly string[]) =>
  z
    .array(scope)
    .min(1)
    .max(30)
    .default(() => [...fallback]);

/** An issuer or endpoint URL: https, or http only with `allowInsecureRequests`. */
const httpUrl = z.string().refine(isBareHttpUrl, {
  message: "must be an http(s) URL without query, fragment or credentials, like https://idp.example.com",
});

/** The issuer identifier, from which discovery finds `<issuer>/.well-known/openid-configuration`. */
const issuerUrl = httpUrl.refine(
  (value) => !URL.canParse(value) || !new URL(value).pathname.includes("/.well-known/"),
  {
    message:
      "must be the issuer, not its discovery document: drop /.well-known/openid-configuration (discovery adds it)",
  },
);

const common = {
  /** The client id registered at the provider. */
  clientId: z.string().min(1).max(512),
  /** The client secret registered at the provider (sent with `client_secret_post`). */
  clientSecret: z.string().min(1).max(4096),
  /** What the "Sign in with …" button says; default: a name for the preset, or `name`. */
  displayName: z.string().min(1).max(100).optional(),
  /**
   * A `fetch` for every request to the provider (a proxy, a test that inspects or tampers with
   * the provider's answers). Default: the global `fetch`.
   */
  fetch: z
    .custom<typeof fetch>((value) => typeof value === "function", { message: "must be a function" })
    .optional(),
};

/** Any OpenID Connect provider, found by discovery (`<issuer>/.well-known/openid-configuration`). */
const oidcProvider = z
  .object({
    type: z.literal("oidc"),
    /** The name in routes (`/oauth/<name>/…`) and in `identityProviders` of users. Default `oidc`. */
    name: name.default("oidc"),
    /** The issuer URL (`https://idp.example.com/realms/acme`), without `/.well-known/openid-configuration`. */
    issuer: issuerUrl,
    scopes: scopes(DEFAULT_OIDC_SCOPES),
    /**
     * Allows an http (not https) issuer and endpoints: for a provider on the developer's machine or
     * in a test, never in production.
     */
    allowInsecureRequests: z.boolean().default(false),
    ...common,
  })
  .refine((provider) => provider.allowInsecureRequests || provider.issuer.startsWith("https:"), {
    message: "must be https (allowInsecureRequests: true permits http for development and tests)",
    path: ["issuer"],
  });

/** Google (OpenID Connect, issuer `https://accounts.google.com`). */
const googleProvider = z.object({
  type: z.literal("google"),
  name: name.default("google"),
  scopes: scopes(DEFAULT_OIDC_SCOPES),
  ...common,
});

/**
 * Microsoft Entra ID (OpenID Connect) for one tenant: issuer
 * `https://login.microsoftonline.com/<tenantId>/v2.0`. The multi-tenant endpoints (`common`,
 * `organizations`, `consumers`) are refused: their ID tokens carry each user's own tenant as
 * issuer, which a discovery-based check cannot pin.
 */
const entraProvider = z.object({
  type: z.literal("entra"),
  name: name.default("entra"),
  tenantId: z
    .string()
    .regex(/^[A-Za-z0-9.-]{1,100}$/, "must be a tenant id (a GUID) or a verified domain")
    .refine((value) => !["common", "organizations", "consumers"].includes(value.toLowerCase()), {
      message: "must be one tenant: the multi-tenant endpoints are not supported",
    }),
  scopes: scopes(DEFAULT_OIDC_SCOPES),
  ...common,
});

/**
 * GitHub (OAuth 2.0, not OpenID Connect): the user is read from `api.github.com/user` and the
 * address from `/user/emails` (the primary one, with GitHub's `verified` flag).
 */
const githubProvider = z.object({
  type: z.literal("github"),
  name: name.default("github"),
  scopes: scopes(["read:user", "user:email"]),
  ...common,
});

export const identityProviderSchema = z.discriminatedUnion("type", [
  oidcProvider,
  googleProvider,
  entraProvider,
  githubProvider,
]);

/** One identity provider as `createAuth` takes it. */
export type IdentityProviderOptions = z.input<typeof identityProviderSchema>;
/** One identity provider after validation. */
export type ResolvedIdentityProvider = z.output<typeof identityProviderSchema>;

/** The configured providers, unique by name. */
export const identityProvidersSchema = z
  .array(identityProviderSchema)
  .max(20)
  .default([])
  .refine((providers) => new Set(providers.map((p) => p.name)).size === providers.length, {
    message: "must have unique names (set `name` when one type is configured twice)",
  });
