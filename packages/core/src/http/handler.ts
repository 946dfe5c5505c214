import type { Principal } from "../context.js";
import type { Auth } from "../create-auth.js";
import { AuthError } from "../errors.js";
import { resolveClientIp } from "../limits/client-ip.js";
import { readJsonBody } from "./body.js";
import { createCookies } from "./cookies.js";
import { errorResponse } from "./respond.js";
import { buildRoutes, type Route, type RouteInput } from "./routes.js";
import type { HttpRequest, HttpResponse } from "./types.js";

/** Maps neutral requests to use cases; what every adapter wraps. */
export interface HttpHandler {
  /** The mount prefix, e.g. `/api/auth`. */
  readonly basePath: string;
  /** Answers a request under `basePath`; null for any other path (the adapter passes it on). */
  handle(request: HttpRequest): Promise<HttpResponse | null>;
  /**
   * For host apps' own routes: the principal of the request's access token (by the same header
   * and cookie rules), or the 401/500 error response to send instead.
   */
  authenticate(
    request: Omit<HttpRequest, "body" | "parsedBody">,
  ): Promise<
    { principal: Principal; response?: undefined } | { principal?: undefined; response: HttpResponse }
  >;
}

const header = (request: Pick<HttpRequest, "headers">, name: string): string | undefined => {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export function createHttpHandler(auth: Auth): HttpHandler {
  const { options, translator, clock, logger } = auth;
  const { basePath } = options;
  const cookies = createCookies(options);
  const routes = buildRoutes(auth, cookies).map((route) => ({
    route,
    segments: route.path.split("/").slice(1),
  }));
  const trustedOrigins = new Set(
    (options.trustedOrigins ?? (options.appOrigin ? [options.appOrigin] : [])).map(
      (origin) => new URL(origin).origin,
    ),
  );
  const { trustProxy } = options;

  /** The client IP under `trustProxy` (CONTRACT §8). */
  const clientIp = (request: Pick<HttpRequest, "headers" | "remoteAddress">) =>
    resolveClientIp(request.remoteAddress, request.headers["x-forwarded-for"], trustProxy);

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

  const readToken = (
    request: Pick<HttpRequest, "headers">,
    jar: Record<string, string | undefined>,
    kind: "access" | "refresh" | "twoFactor" | "stepUp",
  ): string | undefined => {
    let fromHeader: string | undefined;
    if (options.allowHeaderAuthentication) {
      if (kind === "twoFactor")
        fromHeader = header(request, "x-two-factor-authentication-token")?.trim() || undefined;
      else if (kind === "stepUp") fromHeader = header(request, "x-step-up-token")?.trim() || undefined;
      else fromHeader = /^Bearer +(\S+)\s*$/i.exec(header(request, "authorization") ?? "")?.[1];
    }
    const fromCookie = jar[cookies.names[kind]] || undefined;
    if (fromHeader !== undefined && fromCookie !== undefined) {
      return options.preferHeaderAuthentication ? fromHeader : fromCookie;
    }
    return fromHeader ?? fromCookie;
  };

  const localeOf = (request: Pick<HttpRequest, "headers">, query: URLSearchParams) =>
    translator.resolveLocale(query.get("locale") ?? undefined, header(request, "accept-language"));

  /**
   * Cross-site state changes are refused (SECURITY H2): an Origin that is neither trusted nor
   * the request's own (whole origins compared: scheme, host and port), or a cross-site fetch
   * without one.
   */
  const checkOrigin = (request: HttpRequest) => {
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
  };

  const match = (method: string, path: string): { route: Route; params: Record<string, string> } | null => {
    const parts = path.split("/").slice(1);
    for (const { route, segments } of routes) {
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

  return {
    basePath,
    async handle(request) {
      const queryStart = request.url.indexOf("?");
      const path = queryStart === -1 ? request.url : request.url.slice(0, queryStart);
      if (path !== basePath && !path.startsWith(`${basePath}/`)) return null;
      const query = new URLSearchParams(queryStart === -1 ? "" : request.url.slice(queryStart + 1));
      const locale = localeOf(request, query);
      let clearOnFailure: string[] = [];
      try {
        const found = match(request.method.toUpperCase(), path.slice(basePath.length) || "/");
        if (!found) throw new AuthError("NOT_FOUND");
        checkOrigin(request);
        const jar = cookies.parse(header(request, "cookie"));
        if (found.route.path === "/refresh")
          clearOnFailure = [cookies.clear("access"), cookies.clear("refresh")];
        const input: RouteInput = {
          request,
          params: found.params,
          query,
          meta: { ip: clientIp(request), userAgent: header(request, "user-agent"), locale },
          body: () => readJsonBody(request, options.bodyLimitBytes),
          token: (kind) => readToken(request, jar, kind),
          principal: () => auth.authenticate(readToken(request, jar, "access")),
        };
        return await found.route.handle(input);
      } catch (error) {
        const cookiesOnError =
          error instanceof AuthError && error.code === "REFRESH_TOKEN_INVALID" ? clearOnFailure : [];
        return errorResponse(error, {
          path,
          locale,
          now: clock.now(),
          translator,
          logger,
          cookies: cookiesOnError,
        });
      }
    },
    async authenticate(request) {
      const queryStart = request.url.indexOf("?");
      const path = queryStart === -1 ? request.url : request.url.slice(0, queryStart);
      try {
        const jar = cookies.parse(header(request, "cookie"));
        return { principal: await auth.authenticate(readToken(request, jar, "access")) };
      } catch (error) {
        const query = new URLSearchParams(queryStart === -1 ? "" : request.url.slice(queryStart + 1));
        return {
          response: errorResponse(error, {
            path,
            locale: localeOf(request, query),
            now: clock.now(),
            translator,
            logger,
          }),
        };
      }
    },
  };
}
