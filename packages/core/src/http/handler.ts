import { looksLikeApiKey } from "../api-keys/key-format.js";
import type { Auth } from "../create-auth/create-auth.js";
import { AuthError, type ErrorCode } from "../errors.js";
import type { Principal, RequestContext } from "../model.js";
import { readFormBody, readJsonBody } from "./body.js";
import { type CookieKind, type Cookies, createCookies, type TokenKind } from "./cookies.js";
import { apiKeyOf, createRequestChecks, createRouter, header, type RequestChecks } from "./request-checks.js";
import { createErrorResponder } from "./respond.js";
import type { RequestInput, Route, RouteAuth } from "./route.js";
import { buildRoutes } from "./routes.js";
import type { HttpRequest, HttpResponse, SessionCookieTokens } from "./types.js";

/** What `requirePermission` found: the active organization and the member's role and permissions in it. */
export type OrganizationAccess = Awaited<ReturnType<Auth["organizations"]["require"]>>;

/** Maps neutral requests to use cases; what every adapter wraps. */
export interface HttpHandler {
  /** The mount prefix, e.g. `/api/auth`. */
  readonly basePath: string;
  /** Answers a request under `basePath`; null for any other path (the adapter passes it on). */
  handle(request: HttpRequest): Promise<HttpResponse | null>;
  /**
   * For host apps' own routes: the principal of the request's access token (by the same header
   * and cookie rules) or, while `apiKeys` is configured, of its API key (`X-API-Key`, or a bearer
   * `pc_…`; docs/api-keys.md), or the 401/429/500 error response to send instead. With `permission`, also the
   * principal's active organization, when its member's role (read now) grants the permission
   * (`auth.organizations.require`); otherwise the 401 or 403 (`NO_ACTIVE_ORGANIZATION`,
   * `PERMISSION_DENIED`) response.
   */
  authenticate(
    request: Omit<HttpRequest, "body" | "parsedBody">,
    permission?: string,
  ): Promise<
    | { principal: Principal; organization?: OrganizationAccess; response?: undefined }
    | { principal?: undefined; organization?: undefined; response: HttpResponse }
  >;
  /**
   * The `Set-Cookie` values a login sets, for a session the host started with
   * `auth.sessions.create` (the adapters' `setSessionCookies` helpers write them). With
   * `rememberMe: false` (as `sessions.create` returns for such a session) they have no Max-Age.
   */
  sessionCookies(tokens: SessionCookieTokens): string[];
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
 * until a route calls them, and the cookies are parsed only when read. The credential fields are
 * filled by `RESOLVE[route.auth]` before the route runs, and only those of the route's `auth`.
 */
class Call implements RequestInput {
  #query: URLSearchParams | undefined;
  #jar: Record<string, string | undefined> | undefined;
  principal: Principal | undefined = undefined;
  refusal: AuthError | undefined = undefined;
  accessToken: string | undefined = undefined;
  refreshToken: string | undefined = undefined;
  stepUpToken: string | undefined = undefined;
  twoFactorToken: string | undefined = undefined;

  constructor(
    readonly request: HttpRequest,
    readonly params: Readonly<Record<string, string>>,
    readonly meta: RequestContext,
    query: URLSearchParams | undefined,
    readonly deps: CallDeps,
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

  form(): Promise<URLSearchParams> {
    return readFormBody(this.request, this.deps.bodyLimitBytes);
  }

  /** A token by the header/cookie rules of `allowHeaderAuthentication` and `preferHeaderAuthentication`. */
  token(kind: TokenKind): string | undefined {
    return this.deps.readToken(this.request, this.jar, kind);
  }

  cookie(kind: CookieKind): string | undefined {
    return this.jar[this.deps.cookies.names[kind]] || undefined;
  }

  withDevice(): RequestContext {
    return { ...this.meta, deviceToken: this.token("device") };
  }

  accessByCookie(): boolean {
    const cookie = this.cookie("access");
    return cookie !== undefined && this.token("access") === cookie;
  }
}

/** The principal of the call's access token; throws its 401 (or the allowlist's 500). */
async function authenticateAccess(call: Call): Promise<Principal> {
  const principal = await call.deps.auth.authenticate({ token: call.token("access") });
  call.principal = principal;
  return principal;
}

function requireToken(call: Call, kind: "stepUp" | "twoFactor" | "refresh", code: ErrorCode): string {
  const token = call.token(kind);
  if (token === undefined) throw new AuthError(code);
  return token;
}

/**
 * How the credentials of each kind of route are resolved onto the call, before the route runs:
 * one function per kind, chosen by the route's `auth` (no function is made per request).
 */
const RESOLVE: Record<Exclude<RouteAuth, "none">, (call: Call) => Promise<unknown> | undefined> = {
  async optional(call) {
    const token = call.token("access");
    if (token === undefined) {
      call.refusal = new AuthError("AUTHENTICATION_REQUIRED");
      return;
    }
    try {
      await authenticateAccess(call);
    } catch (error) {
      if (!(error instanceof AuthError)) throw error;
      call.refusal = error;
    }
  },
  "sign-out"(call) {
    call.accessToken = call.token("access");
    call.refreshToken = call.token("refresh");
    return undefined;
  },
  access: authenticateAccess,
  async "step-up"(call) {
    await authenticateAccess(call);
    call.stepUpToken = requireToken(call, "stepUp", "STEP_UP_REQUIRED");
  },
  "two-factor"(call) {
    call.twoFactorToken = requireToken(call, "twoFactor", "TWO_FACTOR_TOKEN_INVALID");
    return undefined;
  },
  async "access-and-two-factor"(call) {
    await authenticateAccess(call);
    call.twoFactorToken = requireToken(call, "twoFactor", "TWO_FACTOR_TOKEN_INVALID");
  },
  async "access-or-two-factor"(call) {
    const twoFactorToken = call.token("twoFactor");
    if (twoFactorToken === undefined) return void (await authenticateAccess(call));
    // A 2FA token is judged on its own: an access token beside it (a stale cookie of a revoked
    // session, an expired one, garbage) changes nothing. A live one is kept for the use case,
    // which falls back on it only when the 2FA token is refused.
    call.twoFactorToken = twoFactorToken;
    if (call.token("access") === undefined) return;
    try {
      await authenticateAccess(call);
    } catch (error) {
      if (!(error instanceof AuthError)) throw error;
    }
  },
  refresh(call) {
    call.refreshToken = requireToken(call, "refresh", "REFRESH_TOKEN_INVALID");
    return undefined;
  },
  async admin(call) {
    await authenticateAccess(call);
    call.stepUpToken = call.token("stepUp");
  },
};

/** A cross-origin route's answer: any origin may read it, without credentials (`RouteSpec.crossOrigin`). */
function withOpenCors(response: HttpResponse): HttpResponse {
  response.headers["access-control-allow-origin"] = "*";
  response.headers["access-control-expose-headers"] = "www-authenticate";
  return response;
}

/**
 * The answer to a CORS preflight (`OPTIONS`) of a path whose routes are cross-origin: 204 with
 * their methods; null when the path has no such route (the request then answers 404).
 */
function crossOriginPreflight(
  match: ReturnType<typeof createRouter<Route>>,
  path: string,
): HttpResponse | null {
  const methods = (["GET", "POST", "DELETE"] as const).filter(
    (method) => match(method, path)?.route.crossOrigin,
  );
  if (methods.length === 0) return null;
  return withOpenCors({
    status: 204,
    headers: {
      "access-control-allow-methods": methods.join(", "),
      "access-control-allow-headers": "authorization, content-type, dpop",
      "access-control-max-age": "600",
    },
    cookies: [],
    body: null,
  });
}

/**
 * A new handler for `auth`: its route table, cookies, request checks and error responder, built
 * now. Hosts and adapters take the one of `httpHandlerFor`; tests build their own.
 */
export function createHttpHandler(auth: Auth): HttpHandler {
  const { options, translator, clock, logger } = auth;
  const { basePath } = options;
  const cookies = createCookies(options);
  const match = createRouter(buildRoutes(auth, cookies));
  const { clientIp, untrustedProxy, checkOrigin, readToken } = createRequestChecks(options, cookies, logger);
  const deps: CallDeps = { auth, bodyLimitBytes: options.bodyLimitBytes, cookies, readToken };
  const localeOf = (request: Pick<HttpRequest, "headers">, query: URLSearchParams | undefined) =>
    translator.resolveLocale(query?.get("locale") ?? undefined, header(request, "accept-language"));
  const errorResponse = createErrorResponder(translator, logger);
  const fail = (error: unknown, path: string, locale: string, cookiesOnError: string[] = []) =>
    errorResponse(error, { path, locale, now: clock.now(), cookies: cookiesOnError });

  /** The cookies a route clears when it fails with `error`'s code (`clearOnError`). */
  const clearing = (route: Route | undefined, error: unknown): string[] => {
    const clear = route?.clearOnError;
    const code = error instanceof AuthError ? error.code : undefined;
    return clear && code !== undefined && clear.codes.includes(code)
      ? clear.cookies.map((kind) => cookies.clear(kind))
      : [];
  };

  return {
    basePath,
    async handle(request) {
      const { path, query } = splitUrl(request.url);
      if (path !== basePath && !path.startsWith(`${basePath}/`)) return null;
      const locale = localeOf(request, query);
      let route: Route | undefined;
      try {
        const method = request.method.toUpperCase();
        const found = match(method, path.slice(basePath.length) || "/");
        if (!found) {
          if (method === "OPTIONS") {
            const preflight = crossOriginPreflight(match, path.slice(basePath.length));
            if (preflight) return preflight;
          }
          throw new AuthError("NOT_FOUND");
        }
        route = found.route;
        if (!route.crossOrigin) checkOrigin(request);
        const ip = clientIp(request);
        const meta = untrustedProxy(request, ip)
          ? { ip, untrustedProxy: true, userAgent: header(request, "user-agent"), locale }
          : { ip, userAgent: header(request, "user-agent"), locale };
        // The auth routes take access tokens only: an API key gets no further than this.
        if (route.auth !== "none" && auth.apiKeys.enabled && apiKeyOf(request) !== undefined)
          throw new AuthError("API_KEY_NOT_ALLOWED");
        const call = new Call(request, found.params, meta, query, deps);
        // Only the kinds that read a store return a promise: the others cost no extra await.
        const resolving = route.auth === "none" ? undefined : RESOLVE[route.auth](call);
        if (resolving) await resolving;
        // The call carries the credentials of `route.auth`, resolved just above.
        const response = await (route as { handle(input: Call): Promise<HttpResponse> }).handle(call);
        return route.crossOrigin ? withOpenCors(response) : response;
      } catch (error) {
        const response = fail(error, path, locale, clearing(route, error));
        return route?.crossOrigin ? withOpenCors(response) : response;
      }
    },
    sessionCookies: (tokens) => [...cookies.session(tokens), cookies.clear("twoFactor")],
    async authenticate(request, permission) {
      const { path, query } = splitUrl(request.url);
      try {
        const key = auth.apiKeys.enabled ? apiKeyOf(request) : undefined;
        const token = key ?? readToken(request, cookies.parse(header(request, "cookie")), "access");
        // A key comes in a header only: one found in the access cookie is refused, never used; and
        // whatever comes in `X-API-Key` is judged as a key (anything but `pc_…` is a wrong one).
        if (auth.apiKeys.enabled && looksLikeApiKey(token) !== (key !== undefined))
          throw new AuthError("API_KEY_INVALID");
        const principal = await auth.authenticate({ token });
        if (permission === undefined) return { principal };
        return { principal, organization: await auth.organizations.require(principal, permission) };
      } catch (error) {
        return { response: fail(error, path, localeOf(request, query)) };
      }
    },
  };
}

const handlers = new WeakMap<Auth, HttpHandler>();

/**
 * The HTTP handler of `auth`, built on first use and the same object for every later call: an
 * adapter's router, its guard for the host's own routes and its cookie helper all share one route
 * table, one set of cookies and one error responder. Held weakly: it goes when `auth` does.
 */
export function httpHandlerFor(auth: Auth): HttpHandler {
  let handler = handlers.get(auth);
  if (handler === undefined) {
    handler = createHttpHandler(auth);
    handlers.set(auth, handler);
  }
  return handler;
}
