import { looksLikeApiKey } from "../api-keys/key-format.js";
import { AuthError } from "../errors.js";
import { isUntrustedProxy, resolveClientIp } from "../limits/client-ip.js";
import type { ResolvedAuthOptions } from "../options/options.js";
import type { Logger } from "../ports/logger.js";
import type { Cookies } from "./cookies.js";
import type { HttpRequest } from "./types.js";

/** One header's value (the first, when a client sent it twice). */
export const header = (request: Pick<HttpRequest, "headers">, name: string): string | undefined => {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

type Options = Pick<
  ResolvedAuthOptions,
  "trustProxy" | "trustedOrigins" | "appOrigin" | "allowHeaderAuthentication" | "preferHeaderAuthentication"
>;

/** The auths (by their options) that have logged the `trustProxy` warning: once each. */
const warnedAboutProxy = new WeakSet<object>();

/** Logs, once per auth (by its `options`), that a proxy on this host is not named by `trustProxy`. */
function warnAboutProxyOnce(options: Options, logger: Logger | undefined): void {
  if (warnedAboutProxy.has(options)) return;
  warnedAboutProxy.add(options);
  logger?.warn(
    { event: "trust_proxy.unset" },
    "requests from a proxy on this host carry X-Forwarded-For (or Forwarded, X-Real-IP) while trustProxy is 0: every visitor has the proxy's loopback address and shares its per-IP limits; set trustProxy to the number of proxies in front",
  );
}

/** The origins a state change may come from besides the request's own: `trustedOrigins`, else `appOrigin`. */
const trustedOriginsOf = (options: Options) =>
  new Set(
    (options.trustedOrigins ?? (options.appOrigin ? [options.appOrigin] : [])).map(
      (origin) => new URL(origin).origin,
    ),
  );

/**
 * The request's own origin: the adapter's scheme (or, under `trustProxy`, the right-most
 * `X-Forwarded-Proto`, which the nearest proxy sets) and the Host header.
 */
function ownOrigin(request: HttpRequest, trustProxy: number): string | undefined {
  const host = header(request, "host");
  if (!host) return undefined;
  let scheme = request.encrypted ? "https" : "http";
  if (trustProxy > 0) {
    const forwarded = header(request, "x-forwarded-proto")?.split(",").pop()?.trim().toLowerCase();
    if (forwarded === "https" || forwarded === "http") scheme = forwarded;
  }
  try {
    return new URL(`${scheme}://${host}`).origin;
  } catch {
    return undefined;
  }
}

/**
 * Cross-site state changes are refused (security.md H2): an Origin that is neither trusted nor
 * the request's own (whole origins compared: scheme, host and port), or a cross-site fetch
 * without one.
 */
function checkOrigin(request: HttpRequest, trustedOrigins: ReadonlySet<string>, trustProxy: number): void {
  if (!STATE_CHANGING.has(request.method.toUpperCase())) return;
  const origin = header(request, "origin");
  if (origin === undefined) {
    if (header(request, "sec-fetch-site") === "cross-site") throw new AuthError("CSRF_REJECTED");
    return;
  }
  let normalized: string;
  try {
    normalized = new URL(origin).origin;
  } catch {
    throw new AuthError("CSRF_REJECTED");
  }
  if (trustedOrigins.has(normalized)) return;
  if (normalized === "null" || normalized !== ownOrigin(request, trustProxy))
    throw new AuthError("CSRF_REJECTED");
}

/** The kinds of token a request may carry. */
type TokenKind = "access" | "refresh" | "twoFactor" | "stepUp" | "device";

/** The token of `kind` in the request's headers, when `allowHeaderAuthentication` lets it be there. */
function tokenFromHeader(request: Pick<HttpRequest, "headers">, kind: TokenKind): string | undefined {
  if (kind === "twoFactor") return header(request, "x-two-factor-authentication-token")?.trim() || undefined;
  if (kind === "stepUp") return header(request, "x-step-up-token")?.trim() || undefined;
  if (kind === "device") return header(request, "x-device-token")?.trim() || undefined;
  return /^Bearer +(\S+)\s*$/i.exec(header(request, "authorization") ?? "")?.[1];
}

/**
 * The API key a request carries (docs/api-keys.md): the `X-API-Key` header, else a bearer token that
 * starts with `pc_`. Keys come in headers only, whatever `allowHeaderAuthentication` says (that
 * option is about access tokens a browser could also hold as cookies).
 */
export function apiKeyOf(request: Pick<HttpRequest, "headers">): string | undefined {
  const named = header(request, "x-api-key")?.trim();
  if (named) return named;
  const bearer = /^Bearer +(\S+)\s*$/i.exec(header(request, "authorization") ?? "")?.[1];
  return looksLikeApiKey(bearer) ? bearer : undefined;
}

/** What the HTTP layer reads off a request before a route runs: client IP, origin, credentials. */
export function createRequestChecks(options: Options, cookies: Cookies, logger?: Logger) {
  const { trustProxy } = options;
  const trustedOrigins = trustedOriginsOf(options);

  return {
    /** The client IP under `trustProxy` (docs/limits.md). */
    clientIp: (request: Pick<HttpRequest, "headers" | "remoteAddress">) =>
      resolveClientIp(request.remoteAddress, request.headers["x-forwarded-for"], trustProxy),

    /**
     * Whether the request, whose client IP resolved to `ip`, came from a proxy on this host that
     * `trustProxy` does not name (`isUntrustedProxy`): then it is limited per IP like any client,
     * and the first such request of this auth logs a warning naming `trustProxy`.
     */
    untrustedProxy(request: Pick<HttpRequest, "headers">, ip: string | undefined): boolean {
      if (!isUntrustedProxy(ip, request.headers, trustProxy)) return false;
      warnAboutProxyOnce(options, logger);
      return true;
    },

    /** Refuses a cross-site state change with 403 CSRF_REJECTED (see `checkOrigin` above). */
    checkOrigin(request: HttpRequest): void {
      checkOrigin(request, trustedOrigins, trustProxy);
    },

    /** A token by the header/cookie rules of `allowHeaderAuthentication` and `preferHeaderAuthentication`. */
    readToken(
      request: Pick<HttpRequest, "headers">,
      jar: Record<string, string | undefined>,
      kind: TokenKind,
    ): string | undefined {
      const fromHeader = options.allowHeaderAuthentication ? tokenFromHeader(request, kind) : undefined;
      const fromCookie = jar[cookies.names[kind]] || undefined;
      if (fromHeader !== undefined && fromCookie !== undefined) {
        return options.preferHeaderAuthentication ? fromHeader : fromCookie;
      }
      return fromHeader ?? fromCookie;
    },
  };
}

export type RequestChecks = ReturnType<typeof createRequestChecks>;

/** Finds the route of a method and path (relative to the mount prefix) and its `:name` params. */
export function createRouter<R extends { method: string; path: string }>(routes: readonly R[]) {
  // Paths without a `:name` segment (all but a few) are found by one map lookup.
  const fixed = new Map<string, { route: R; params: Record<string, string> }>();
  for (const route of routes) {
    const key = `${route.method} ${route.path}`;
    if (!route.path.includes("/:") && !fixed.has(key)) fixed.set(key, { route, params: {} });
  }
  const table = routes
    .filter((route) => route.path.includes("/:"))
    .map((route) => ({ route, segments: route.path.split("/").slice(1) }));
  return (method: string, path: string): { route: R; params: Record<string, string> } | null => {
    const found = fixed.get(`${method} ${path}`);
    if (found) return { route: found.route, params: {} };
    const parts = path.split("/").slice(1);
    for (const { route, segments } of table) {
      if (route.method !== method || segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      const ok = segments.every((segment, index) => {
        const part = parts[index] ?? "";
        if (!segment.startsWith(":")) return segment === part;
        try {
          params[segment.slice(1)] = decodeURIComponent(part);
        } catch {
          return false;
        }
        return part !== "";
      });
      if (ok) return { route, params };
    }
    return null;
  };
}
