import type { Session } from "./session.js";
import type { TokenStorage } from "./transport.js";

/** `RequestInit`, and whether the request is the page's own (a poll) rather than the user's. */
export type HostFetchInit = RequestInit & {
  /** Not the user's activity: while the user is idle, a refused access token is not refreshed. */
  background?: boolean;
};

export interface HostFetchOptions {
  session: Session;
  mode: "cookie" | "header";
  storage: TokenStorage;
  fetch: typeof fetch;
}

/**
 * A `fetch` for the host's own routes, with the session's access token: the cookies in cookie
 * mode (`credentials: "include"`), `Authorization: Bearer` in header mode. Refreshed first when
 * the token is about to expire; a 401 answer is retried once after one refresh (shared with every
 * other call waiting for one). It resolves to the last answer, as `fetch` does, and rejects only
 * when no answer came. A body is sent again on the retry: give a string, `FormData`, `Blob` or
 * `URLSearchParams`, not a stream.
 */
export function createHostFetch(options: HostFetchOptions) {
  const { session } = options;
  const send = (input: string | URL | Request, init: HostFetchInit) => {
    const { background: _, ...rest } = init;
    const headers = new Headers(
      typeof Request !== "undefined" && input instanceof Request ? input.headers : {},
    );
    new Headers(rest.headers).forEach((value, name) => {
      headers.set(name, value);
    });
    const token = options.mode === "header" ? options.storage.get()?.accessToken : undefined;
    if (token) headers.set("authorization", `Bearer ${token}`);
    return options.fetch(input, {
      ...rest,
      headers,
      ...(options.mode === "cookie" ? { credentials: "include" as const } : {}),
    });
  };
  return async (input: string | URL | Request, init: HostFetchInit = {}): Promise<Response> => {
    const userActive = session.callStarts(init.background);
    const mayRefresh = () => userActive && session.canRefresh();
    const refresh = () =>
      session.refresher.refresh().then(
        () => true,
        () => false,
      );
    if (session.expiresSoon() && mayRefresh()) await refresh();
    const sentAt = session.refresher.generation;
    const response = await send(input, init);
    if (response.status !== 401 || !mayRefresh()) return response;
    // A refresh that finished since this request was sent already gave a new token.
    if (session.refresher.generation === sentAt && !(await refresh())) return response;
    await response.body?.cancel().catch(() => {});
    return send(input, init);
  };
}
