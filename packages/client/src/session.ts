import type { ErrorCode, User } from "./api-types.js";
import type { PortcullisError } from "./errors.js";
import { type ChannelLike, createRefresher, type LockManagerLike, type SharedMessage } from "./refresh.js";
import type { RouteKey, Routes } from "./routes.js";
import { type CallInit, readAnswer, type Send, type TokenStorage, timesOf } from "./transport.js";

/** The session events: `on(name, listener)` gives a function that removes the listener. */
export interface AuthClientEvents {
  /** A sign-in finished in this client (login, 2FA, recovery). */
  signedIn: { user: User };
  /**
   * The client holds no session any more: `logout` here, a sign-out in another tab, or a
   * session that ended (refresh refused); `code` is the server's when it refused.
   */
  signedOut: { reason: "logout" | "other-tab" | "session-ended"; code?: ErrorCode | undefined };
  /** A signed-in session was refused and refresh could not fix it (revoked or expired elsewhere). */
  sessionEnded: { code: ErrorCode };
}

export type SessionState = "unknown" | "signed-in" | "signed-out";

/** The codes of a refused access token that a refresh can fix. */
const REFRESHABLE = new Set<string>([
  "ACCESS_TOKEN_EXPIRED",
  "ACCESS_TOKEN_INVALID",
  "AUTHENTICATION_REQUIRED",
]);
/** The kinds of route that send the access token. */
const ACCESS_KINDS = new Set(["access", "step-up", "access-and-two-factor", "access-or-two-factor", "admin"]);

export interface SessionOptions {
  send: Send;
  mode: "cookie" | "header";
  storage: TokenStorage;
  locks: LockManagerLike | undefined;
  channel: ChannelLike | undefined;
  lockName: string;
  /** Milliseconds since the epoch. */
  now(): number;
  refreshMarginSeconds: number;
  kinds: { readonly [K in RouteKey]: string };
  /** `signed-out` when the host knows this browser holds no session: a 401 then tries no refresh. */
  initialState?: "unknown" | "signed-out";
}

/** Past this gap (ms) between the server's `Date` and this clock, expiries are moved by it. */
const SKEW_MS = 5_000;

/**
 * When the access token expires, as this clock tells time: from the answers' `accessTokenExpiresAt`
 * (cookie mode, where the token is out of reach) or the token's `exp` (header mode). A clock more
 * than 5 s off the server's `Date` is corrected for; the margin is at most a quarter of the
 * token's lifetime, so short-lived tokens are not refreshed on every call.
 */
function createExpiry(options: Pick<SessionOptions, "now" | "refreshMarginSeconds" | "mode" | "storage">) {
  let noted: { at: number; lifetime: number } | undefined;
  let offset = 0;
  const soon = (at: number, lifetime: number) =>
    at - options.now() <= Math.min(options.refreshMarginSeconds * 1000, lifetime / 4);
  return {
    /** An answer's `Date` header: the server's time. */
    serverTime(date: string | null | undefined) {
      const server = date ? Date.parse(date) : Number.NaN;
      if (!Number.isFinite(server)) return;
      const gap = server - options.now();
      offset = Math.abs(gap) > SKEW_MS ? gap : 0;
    },
    /** An answer's (or another tab's) `accessTokenExpiresAt`. */
    note(iso: unknown) {
      const at = typeof iso === "string" ? Date.parse(iso) - offset : Number.NaN;
      if (Number.isFinite(at)) noted = { at, lifetime: Math.max(0, at - options.now()) };
    },
    clear() {
      noted = undefined;
    },
    /** The last noted expiry, as the server tells time (to share with other tabs). */
    shared: () => (noted ? new Date(noted.at + offset).toISOString() : undefined),
    soon() {
      if (options.mode === "header") {
        const times = timesOf(options.storage.get()?.accessToken);
        if (!times) return false;
        const lifetime = times.iat === undefined ? Number.POSITIVE_INFINITY : (times.exp - times.iat) * 1000;
        return soon(times.exp * 1000 - offset, lifetime);
      }
      return noted !== undefined && soon(noted.at, noted.lifetime);
    },
  };
}

function createEvents() {
  const listeners = new Map<string, Set<(payload: never) => void>>();
  return {
    on<E extends keyof AuthClientEvents>(name: E, listener: (payload: AuthClientEvents[E]) => void) {
      const set = listeners.get(name) ?? new Set();
      listeners.set(name, set);
      set.add(listener as (payload: never) => void);
      return () => void set.delete(listener as (payload: never) => void);
    },
    emit<E extends keyof AuthClientEvents>(name: E, payload: AuthClientEvents[E]) {
      for (const listener of [...(listeners.get(name) ?? [])])
        (listener as (p: typeof payload) => void)(payload);
    },
  };
}

/** The session: its state and tokens, refresh (single-flight, across tabs), and the events. */
export function createSession(options: SessionOptions) {
  const { storage, mode } = options;
  const events = createEvents();
  const expiry = createExpiry(options);
  let state: SessionState = options.initialState ?? "unknown";
  let stepUpToken: string | undefined;
  const activity = createActivity();

  const signOut = (
    reason: AuthClientEvents["signedOut"]["reason"],
    code?: ErrorCode,
    message = "Signed out",
  ) => {
    const deviceToken = storage.get()?.deviceToken ?? null;
    storage.set(mode === "header" ? { accessToken: null, refreshToken: null, deviceToken } : null);
    stepUpToken = undefined;
    expiry.clear();
    if (reason !== "other-tab")
      refresher.share({ type: "portcullis:signed-out", code: code ?? "AUTHENTICATION_REQUIRED", message });
    if (state === "signed-out") return;
    const was = state;
    state = "signed-out";
    if (reason === "session-ended" && was === "signed-in" && code) events.emit("sessionEnded", { code });
    events.emit("signedOut", { reason, code });
  };

  const onShared = (message: SharedMessage) => {
    if (message.type === "portcullis:signed-out") return signOut("other-tab", message.code as ErrorCode);
    if (message.type === "portcullis:refreshed") activity.restart();
    expiry.note(message.accessTokenExpiresAt);
    if (message.type === "portcullis:signed-in") state = "unknown";
    else if (mode === "header" && message.tokens)
      storage.set(message.tokens as ReturnType<TokenStorage["get"]>);
  };

  /** A refresh (or an answer that stands for one) gave a new access token. */
  const refreshed = () => {
    state = "signed-in";
    activity.restart();
  };
  const refreshOnce = () => refreshAndKeep(options, { expiry, signOut, signedIn: refreshed });

  const refresher = createRefresher({ ...options, refresh: refreshOnce, onShared });

  const canRefresh = () =>
    mode === "header" ? Boolean(storage.get()?.refreshToken) : state !== "signed-out";

  return {
    events,
    refresher,
    signOut,
    canRefresh,
    callStarts: activity.callStarts,
    expiresSoon: () => state !== "signed-out" && expiry.soon(),
    expiry,
    state: () => state,
    setState: (next: SessionState) => {
      state = next;
    },
    setTokens: (tokens: ReturnType<TokenStorage["get"]>) => storage.set(tokens),
    signIn: (user: User) => {
      state = "signed-in";
      activity.restart();
      refresher.share(signedInMessage(expiry.shared()));
      events.emit("signedIn", { user });
    },
    /** An answer with a new access token of this session (an organization's activation): as a refresh's. */
    adoptAccessToken: (accessToken: string | null) => {
      refresher.share(keepAccessToken(options, accessToken, expiry.shared()));
      refreshed();
    },
    stepUpToken: () => stepUpToken,
    setStepUpToken: (token: string | null | undefined) => {
      stepUpToken = token ?? undefined;
    },
  };
}

export type Session = ReturnType<typeof createSession>;

/**
 * A new access token of the session from an answer other than a refresh's: kept in header mode
 * (the refresh token stays). The message telling the other tabs, as after a refresh.
 */
function keepAccessToken(
  { mode, storage }: Pick<SessionOptions, "mode" | "storage">,
  accessToken: string | null,
  accessTokenExpiresAt: string | undefined,
): SharedMessage {
  if (mode !== "header" || !accessToken) return { type: "portcullis:refreshed", accessTokenExpiresAt };
  const held = storage.get();
  const tokens = { ...held, accessToken, refreshToken: held?.refreshToken ?? null };
  storage.set(tokens);
  return { type: "portcullis:refreshed", tokens, accessTokenExpiresAt };
}

/** What a tab tells the others of its sign-in: the new access token's expiry, when known. */
const signedInMessage = (accessTokenExpiresAt: string | undefined): SharedMessage => ({
  type: "portcullis:signed-in",
  ...(accessTokenExpiresAt ? { accessTokenExpiresAt } : {}),
});

/**
 * Whether the user was active since the session's idle clock last started (its sign-in, a
 * refresh here or in another tab, or the page load): only then may a refresh go ahead, so a tab
 * left alone does not keep its session.
 */
function createActivity() {
  let active = true;
  return {
    /** A sign-in or a refresh: the server's idle clock starts again. */
    restart() {
      active = false;
    },
    /**
     * A call starts: one that is not `background` is the user's activity. True when the call may
     * refresh (the user was active since the last refresh, or is now).
     */
    callStarts(background: boolean | undefined) {
      if (!background) active = true;
      return active;
    },
  };
}

/** The user's activity: the next refresh may go ahead, and one is made now when the access token has lapsed or soon will. */
export async function touch(session: Session): Promise<void> {
  session.callStarts(false);
  if (session.state() === "signed-in" && session.expiresSoon() && session.canRefresh())
    await session.refresher.refresh().catch(() => {});
}

/** `POST /refresh`: keeps the new tokens (header mode) and gives them to share; a 4xx refusal signs out. */
async function refreshAndKeep(
  { send, mode, storage }: Pick<SessionOptions, "send" | "mode" | "storage">,
  on: {
    expiry: ReturnType<typeof createExpiry>;
    signOut(reason: "session-ended", code: ErrorCode, message: string): void;
    signedIn(): void;
  },
) {
  const response = await send("POST /refresh", {});
  on.expiry.serverTime(response.headers.get("date"));
  if (!response.ok) {
    const error = await readAnswer<never>(response).catch((e: PortcullisError) => e);
    if (error.status >= 400 && error.status < 500 && error.status !== 429)
      on.signOut("session-ended", error.code as ErrorCode, error.message);
    throw error;
  }
  const body = await readAnswer<Routes["POST /refresh"]["response"]>(response);
  on.expiry.note(body.accessTokenExpiresAt);
  on.signedIn();
  const shared = { accessTokenExpiresAt: body.accessTokenExpiresAt ?? undefined };
  if (mode !== "header") return shared;
  const tokens = { ...storage.get(), accessToken: body.accessToken, refreshToken: body.refreshToken };
  storage.set(tokens);
  return { ...shared, tokens };
}

/**
 * A call of route `key`: refreshed first when the access token is about to expire, and retried
 * once after one refresh when the access token is refused (twice when another tab refreshed
 * during the retry); a refusal refresh cannot fix ends the session (`sessionEnded`, `signedOut`).
 * A call is the user's activity unless `init.background`; a background call made while the user
 * was idle (no activity since the last refresh) never refreshes: it gets the server's refusal.
 */
export async function callWithRefresh<K extends RouteKey>(
  session: Session,
  options: Pick<SessionOptions, "send" | "kinds">,
  key: K,
  init: CallInit<K>,
): Promise<Routes[K]["response"]> {
  const userActive = session.callStarts(init.background);
  const mayRefresh = () => userActive && session.canRefresh();
  const usesAccess =
    ACCESS_KINDS.has(options.kinds[key]) && !init.headers?.["x-two-factor-authentication-token"];
  if (usesAccess && session.expiresSoon() && mayRefresh()) await session.refresher.refresh();
  let sentAt = session.refresher.generation;
  let response = await options.send(key, init);
  if (response.status === 401 && usesAccess) {
    const refused = await readAnswer<never>(response).catch((e: PortcullisError) => e);
    if (!REFRESHABLE.has(refused.code) || !mayRefresh()) throw refused;
    // A refresh that finished since this call was sent already gave a new token: retry with it.
    if (session.refresher.generation === sentAt) await session.refresher.refresh();
    sentAt = session.refresher.generation;
    response = await options.send(key, init);
    // Refused again: when another tab's refresh came meanwhile (it revoked the token this retry
    // carried), once more with that tab's token; otherwise the session has ended.
    if (response.status === 401 && session.refresher.generation !== sentAt) {
      await response.body?.cancel().catch(() => {});
      response = await options.send(key, init);
    }
    if (response.status === 401) {
      const again = await readAnswer<never>(response).catch((e: PortcullisError) => e);
      if (REFRESHABLE.has(again.code)) session.signOut("session-ended", again.code as ErrorCode);
      throw again;
    }
  }
  const body = await readAnswer<Routes[K]["response"]>(response);
  // A sign-in's answer: when its access token expires (the server's time, moved by a skewed clock).
  session.expiry.serverTime(response.headers.get("date"));
  session.expiry.note((body as { accessTokenExpiresAt?: unknown } | null)?.accessTokenExpiresAt);
  // An access call that worked: this browser holds a session, whatever was thought before.
  if (usesAccess && session.state() !== "signed-in") session.setState("signed-in");
  return body;
}
