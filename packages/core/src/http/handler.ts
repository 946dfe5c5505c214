import type { Auth } from "../create-auth.js";
import { AuthError } from "../errors.js";
import type { Principal, RequestContext } from "../model.js";
import { readJsonBody } from "./body.js";
import { type CookieKind, type Cookies, createCookies, type TokenKind } from "./cookies.js";
import { createRequestChecks, createRouter, header, type RequestChecks } from "./request-checks.js";
import { createErrorResponder } from "./respond.js";
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

/** Path and query of a request URL; no query is parsed when the URL has none. */
function splitUrl(url: string): { path: string; query: URLSearchParams | undefined } {
  const queryStart = url.indexOf("?");
  return queryStart === -1
    ? { path: url, query: undefined }
    : { path: url.slice(0, queryStart), query: new URLSearchParams(url.slice(queryStart + 1)) };
}

/** What a call needs from its handler: the same for every request. */
interface CallDeps {
  auth: Auth;
  bodyLimitBytes: number;
  cookies: Cookies;
  readToken: RequestChecks["readToken"];
}

/**
 * One request as a route sees it. A class, not an object of closures: its helpers cost nothing
 * until a route calls them, and the cookies are parsed only when read.
 */
class Call implements RouteInput {
  #query: URLSearchParams | undefined;
  #jar: Record<string, string | undefined> | undefined;

  constructor(
    readonly request: HttpRequest,
    readonly params: Readonly<Record<string, string>>,
    readonly meta: RequestContext,
    query: URLSearchParams | undefined,
    private readonly deps: CallDeps,
  ) {
    this.#query = query;
  }

  get query(): URLSearchParams {
    this.#query ??= new URLSearchParams();
    return this.#query;
  }

  private get jar(): Record<string, string | undefined> {
    this.#jar ??= this.deps.cookies.parse(header(this.request, "cookie"));
    return this.#jar;
  }

  body<T>(): Promise<T> {
    return readJsonBody(this.request, this.deps.bodyLimitBytes) as Promise<T>;
  }

  token(kind: TokenKind): string | undefined {
    return this.deps.readToken(this.request, this.jar, kind);
  }

  cookie(kind: CookieKind): string | undefined {
    return this.jar[this.deps.cookies.names[kind]] || undefined;
  }

  principal(): Promise<Principal> {
    return this.deps.auth.authenticate(this.token("access"));
  }
}

export function createHttpHandler(auth: Auth): HttpHandler {
  const { options, translator, clock, logger } = auth;
  const { basePath } = options;
  const cookies = createCookies(options);
  const match = createRouter(buildRoutes(auth, cookies));
  const { clientIp, checkOrigin, readToken } = createRequestChecks(options, cookies);
  const deps: CallDeps = { auth, bodyLimitBytes: options.bodyLimitBytes, cookies, readToken };
  const localeOf = (request: Pick<HttpRequest, "headers">, query: URLSearchParams | undefined) =>
    translator.resolveLocale(query?.get("locale") ?? undefined, header(request, "accept-language"));
  const errorResponse = createErrorResponder(translator, logger);
  const fail = (error: unknown, path: string, locale: string, cookiesOnError: string[] = []) =>
    errorResponse(error, { path, locale, now: clock.now(), cookies: cookiesOnError });

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
        const meta = { ip: clientIp(request), userAgent: header(request, "user-agent"), locale };
        return await found.route.handle(new Call(request, found.params, meta, query, deps));
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
