import type { Auth } from "../create-auth.js";
import { AuthError } from "../errors.js";
import type { Principal } from "../model.js";
import { readJsonBody } from "./body.js";
import { createCookies } from "./cookies.js";
import { createRequestChecks, createRouter, header } from "./request-checks.js";
import { errorResponse } from "./respond.js";
import type { Route, RouteInput } from "./route.js";
import { buildRoutes } from "./routes.js";
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
  /**
   * The `Set-Cookie` values a login sets, for a session the host started with
   * `auth.sessions.create` (the adapters' `setSessionCookies` helpers write them).
   */
  sessionCookies(tokens: { accessToken: string; refreshToken: string }): string[];
}

/** Path and query of a request URL. */
function splitUrl(url: string): { path: string; query: URLSearchParams } {
  const queryStart = url.indexOf("?");
  return {
    path: queryStart === -1 ? url : url.slice(0, queryStart),
    query: new URLSearchParams(queryStart === -1 ? "" : url.slice(queryStart + 1)),
  };
}

export function createHttpHandler(auth: Auth): HttpHandler {
  const { options, translator, clock, logger } = auth;
  const { basePath } = options;
  const cookies = createCookies(options);
  const match = createRouter(buildRoutes(auth, cookies));
  const { clientIp, checkOrigin, readToken } = createRequestChecks(options, cookies);
  const localeOf = (request: Pick<HttpRequest, "headers">, query: URLSearchParams) =>
    translator.resolveLocale(query.get("locale") ?? undefined, header(request, "accept-language"));
  const fail = (error: unknown, path: string, locale: string, cookiesOnError: string[] = []) =>
    errorResponse(error, { path, locale, now: clock.now(), translator, logger, cookies: cookiesOnError });

  return {
    basePath,
    async handle(request) {
      const { path, query } = splitUrl(request.url);
      if (path !== basePath && !path.startsWith(`${basePath}/`)) return null;
      const locale = localeOf(request, query);
      let route: Route | undefined;
      try {
        const found = match(request.method.toUpperCase(), path.slice(basePath.length) || "/");
        if (!found) throw new AuthError("NOT_FOUND");
        route = found.route;
        checkOrigin(request);
        const jar = cookies.parse(header(request, "cookie"));
        const input: RouteInput = {
          request,
          params: found.params,
          query,
          meta: { ip: clientIp(request), userAgent: header(request, "user-agent"), locale },
          body: <T>() => readJsonBody(request, options.bodyLimitBytes) as Promise<T>,
          token: (kind) => readToken(request, jar, kind),
          cookie: (kind) => jar[cookies.names[kind]] || undefined,
          principal: () => auth.authenticate(readToken(request, jar, "access")),
        };
        return await found.route.handle(input);
      } catch (error) {
        const clear = route?.clearOnError;
        const matches = clear && error instanceof AuthError && error.code === clear.code;
        return fail(error, path, locale, matches ? clear.cookies.map((kind) => cookies.clear(kind)) : []);
      }
    },
    sessionCookies: ({ accessToken, refreshToken }) => [
      cookies.set("access", accessToken, options.accessTokenTtlSeconds),
      cookies.set("refresh", refreshToken, options.refreshTokenTtlSeconds),
      cookies.clear("twoFactor"),
    ],
    async authenticate(request) {
      const { path, query } = splitUrl(request.url);
      try {
        const jar = cookies.parse(header(request, "cookie"));
        return { principal: await auth.authenticate(readToken(request, jar, "access")) };
      } catch (error) {
        return { response: fail(error, path, localeOf(request, query)) };
      }
    },
  };
}
