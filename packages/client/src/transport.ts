import { errorFromResponse, PortcullisError } from "./errors.js";
import { ROUTE_AUTH, type RouteKey, type Routes } from "./routes.js";

/** Where the client keeps the tokens of header mode (memory by default). */
export interface StoredTokens {
  accessToken: string | null;
  refreshToken: string | null;
  /** The browser's device token from the last sign-in (`X-Device-Token`). */
  deviceToken?: string | null;
}

/** Storage for header mode's tokens: synchronous, e.g. memory (the default) or a wrapper of a file. */
export interface TokenStorage {
  get(): StoredTokens | null;
  set(tokens: StoredTokens | null): void;
}

/** What a call of route `K` takes besides the route. */
export type CallInit<K extends RouteKey> = (undefined extends Routes[K]["body"]
  ? { body?: Routes[K]["body"] }
  : { body: Routes[K]["body"] }) &
  (Routes[K]["query"] extends undefined ? { query?: undefined } : { query: Routes[K]["query"] }) &
  (K extends `${string}:${string}` ? { params: Record<string, string> } : { params?: undefined }) & {
    /** Extra headers (a 2FA flow's token in header mode). */
    headers?: Record<string, string>;
    /**
     * Made by the page, not by the user (a poll): not the user's activity, and while the user is
     * idle it refreshes nothing (a lapsed access token is refused), so the idle timeout applies.
     */
    background?: boolean;
  };

export interface TransportOptions {
  baseUrl: string;
  mode: "cookie" | "header";
  fetch: typeof fetch;
  storage: TokenStorage;
  locale(): string | undefined;
  stepUpToken(): string | undefined;
}

/** The access-token credential `kind` sends, in header mode. */
function bearerFor(kind: string, tokens: StoredTokens | null): string | null | undefined {
  if (kind === "refresh") return tokens?.refreshToken;
  if (kind === "sign-out") return tokens?.accessToken ?? tokens?.refreshToken;
  if (kind === "none" || kind === "two-factor") return undefined;
  return tokens?.accessToken;
}

/** The URL of route `key` below `baseUrl`, with its `:params` and query. */
export function urlOf(baseUrl: string, key: string, params?: Record<string, string>, query?: object) {
  const path = key
    .slice(key.indexOf(" ") + 1)
    .replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(params?.[name] ?? ""));
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {}))
    if (value !== undefined && value !== null) search.set(name, String(value));
  const text = search.toString();
  return `${baseUrl.replace(/\/+$/, "")}${path}${text ? `?${text}` : ""}`;
}

/** Sends one request of route `key`; rejects only when no answer came (`NETWORK_FAILURE`). */
export function createTransport(options: TransportOptions) {
  return async function send<K extends RouteKey>(key: K, init: CallInit<K>): Promise<Response> {
    const kind = ROUTE_AUTH[key];
    const headers: Record<string, string> = { accept: "application/json", ...init.headers };
    const locale = options.locale();
    if (locale) headers["accept-language"] = locale;
    if (init.body !== undefined) headers["content-type"] = "application/json";
    if (options.mode === "header") {
      const tokens = options.storage.get();
      const bearer = bearerFor(kind, tokens);
      if (bearer) headers.authorization = `Bearer ${bearer}`;
      if (tokens?.deviceToken) headers["x-device-token"] = tokens.deviceToken;
      const stepUp = options.stepUpToken();
      if (stepUp && (kind === "step-up" || kind === "admin")) headers["x-step-up-token"] = stepUp;
    }
    const method = key.slice(0, key.indexOf(" "));
    try {
      return await options.fetch(urlOf(options.baseUrl, key, init.params, init.query), {
        method,
        headers,
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
        ...(options.mode === "cookie" ? { credentials: "include" as const } : {}),
      });
    } catch (cause) {
      throw new PortcullisError("NETWORK_FAILURE", `No answer from ${options.baseUrl}`, { cause });
    }
  };
}

export type Send = ReturnType<typeof createTransport>;

/** The JSON of a successful answer, or the `PortcullisError` of a refused one. */
export async function readAnswer<T>(response: Response): Promise<T> {
  if (!response.ok) throw await errorFromResponse(response);
  try {
    return (await response.json()) as T;
  } catch (cause) {
    throw new PortcullisError("UNEXPECTED_RESPONSE", "The answer is not JSON", {
      status: response.status,
      cause,
    });
  }
}

/** In-memory token storage (header mode's default). */
export function memoryStorage(): TokenStorage {
  let tokens: StoredTokens | null = null;
  return {
    get: () => tokens,
    set: (next) => {
      tokens = next;
    },
  };
}

/** Seconds since the epoch at which a JWT expires (its `exp`), or undefined when it cannot be read. */
export function expiryOf(token: string | null | undefined): number | undefined {
  return timesOf(token)?.exp;
}

/** A JWT's `exp` and `iat` (seconds since the epoch; `iat` may be missing), or undefined. */
export function timesOf(token: string | null | undefined): { exp: number; iat?: number } | undefined {
  const payload = token?.split(".")[1];
  if (!payload) return undefined;
  try {
    const json = atob(payload.replace(/-/g, "+").replace(/_/g, "/"));
    const { exp, iat } = JSON.parse(json) as { exp?: unknown; iat?: unknown };
    if (typeof exp !== "number") return undefined;
    return typeof iat === "number" ? { exp, iat } : { exp };
  } catch {
    return undefined;
  }
}
