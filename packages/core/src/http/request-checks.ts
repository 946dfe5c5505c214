import { AuthError } from "../errors.js";
import { resolveClientIp } from "../limits/client-ip.js";
import type { ResolvedAuthOptions } from "../options.js";
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

/** What the HTTP layer reads off a request before a route runs: client IP, origin, credentials. */
export function createRequestChecks(options: Options, cookies: Cookies) {
  const { trustProxy } = options;
  const trustedOrigins = new Set(
    (options.trustedOrigins ?? (options.appOrigin ? [options.appOrigin] : [])).map(
      (origin) => new URL(origin).origin,
    ),
  );

  /**
   * The request's own origin: the adapter's scheme (or, under `trustProxy`, the right-most
   * `X-Forwarded-Proto`, which the nearest proxy sets) and the Host header.
   */
  const ownOrigin = (request: HttpRequest): string | undefined => {
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
  };

  return {
    /** The client IP under `trustProxy` (docs/limits.md). */
    clientIp: (request: Pick<HttpRequest, "headers" | "remoteAddress">) =>
      resolveClientIp(request.remoteAddress, request.headers["x-forwarded-for"], trustProxy),

    /**
     * Cross-site state changes are refused (security.md H2): an Origin that is neither trusted nor
     * the request's own (whole origins compared: scheme, host and port), or a cross-site fetch
     * without one.
     */
    checkOrigin(request: HttpRequest): void {
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
      if (normalized === "null" || normalized !== ownOrigin(request)) throw new AuthError("CSRF_REJECTED");
    },

    /** A token by the header/cookie rules of `allowHeaderAuthentication` and `preferHeaderAuthentication`. */
    readToken(
      request: Pick<HttpRequest, "headers">,
      jar: Record<string, string | undefined>,
      kind: "access" | "refresh" | "twoFactor" | "stepUp" | "device",
    ): string | undefined {
      let fromHeader: string | undefined;
      if (options.allowHeaderAuthentication) {
        if (kind === "twoFactor")
          fromHeader = header(request, "x-two-factor-authentication-token")?.trim() || undefined;
        else if (kind === "stepUp") fromHeader = header(request, "x-step-up-token")?.trim() || undefined;
        else if (kind === "device") fromHeader = header(request, "x-device-token")?.trim() || undefined;
        else fromHeader = /^Bearer +(\S+)\s*$/i.exec(header(request, "authorization") ?? "")?.[1];
      }
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
