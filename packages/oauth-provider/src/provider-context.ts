import { createHash, randomBytes } from "node:crypto";
import type { Auth, HttpResponse, OAuthStore, SingleUseTokenStore } from "@portcullis/core";
import type { ClientRegistry } from "./clients.js";
import type { KeySealer } from "./sealed-key.js";
import type { SigningKeyRing } from "./signing-keys.js";

/** The lifetimes a provider works with, in seconds (`createOAuthProvider`'s options, resolved). */
export interface Lifetimes {
  accessToken: number;
  idToken: number;
  refreshToken: number;
  code: number;
  consentRequest: number;
  device: number;
}

/** The pages of the host's app the provider sends a browser to, each a path on `appOrigin`. */
export interface ProviderPages {
  /** Sign-in; gets `?returnTo=<the authorization URL>`. */
  login: string;
  /** Consent; gets `?consentId=…`. */
  consent: string;
  /** Device code entry (RFC 8628's `verification_uri`). */
  device: string;
}

/** Everything a route of the provider may touch, made once in `setUp`. */
export interface ProviderContext {
  auth: Auth;
  /** `<appOrigin><basePath>`: the `iss` of every token and of the metadata. */
  issuer: string;
  appOrigin: string;
  oauth: OAuthStore;
  tokens: SingleUseTokenStore;
  ring: SigningKeyRing;
  clients: ClientRegistry;
  /** Seals consent requests into their `consentId` (a key of its own, derived from `secret`). */
  consentSealer: KeySealer;
  /** Resource indicators (RFC 8707) a client may ask tokens for, besides URLs on `appOrigin`. */
  resources: readonly string[];
  /** Scopes a client may be registered with, besides `openid profile email offline_access`. */
  scopes: readonly string[];
  lifetimes: Lifetimes;
  pages: ProviderPages;
  allowDynamicRegistration: boolean;
  now(): number;
}

/** SHA-256 of a token, base64url: what the stores keep instead of codes and refresh tokens. */
export const hashOf = (value: string) => createHash("sha256").update(value).digest("base64url");

/** 32 random bytes, base64url (43 characters): codes, refresh tokens, consent and device codes. */
export const randomToken = () => randomBytes(32).toString("base64url");

/** A JSON answer that no cache keeps (RFC 6749 §5.1). */
export function oauthJson(status: number, body: unknown, headers: Record<string, string> = {}): HttpResponse {
  return {
    status,
    headers: {
      "content-type": "application/json; charset=utf-8",
      "cache-control": "no-store",
      pragma: "no-cache",
      ...headers,
    },
    cookies: [],
    body: JSON.stringify(body),
  };
}

/** A 302 to `location`, which no cache keeps. */
export function redirectTo(location: string): HttpResponse {
  return { status: 302, headers: { location, "cache-control": "no-store" }, cookies: [], body: null };
}

/** `url` with `params` added to its query (the client's redirect URI keeps its own query). */
export function withQuery(url: string, params: Record<string, string | undefined>): string {
  const target = new URL(url);
  for (const [name, value] of Object.entries(params))
    if (value !== undefined) target.searchParams.set(name, value);
  return target.href;
}

/** Space-separated scopes as a list without repeats, in their first order. */
export const scopeList = (scope: string | null | undefined): string[] => [
  ...new Set((scope ?? "").split(" ").filter((part) => part !== "")),
];
