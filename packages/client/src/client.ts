import type * as api from "./api-types.js";
import { createHostFetch } from "./host-fetch.js";
import type { ChannelLike, LockManagerLike } from "./refresh.js";
import { ROUTE_AUTH, type RouteKey, type Routes, type SignedInResponse } from "./routes.js";
import {
  type AuthClientEvents,
  callWithRefresh,
  createSession,
  type Session,
  type SessionState,
  touch,
} from "./session.js";
import { type CallInit, createTransport, memoryStorage, type TokenStorage, urlOf } from "./transport.js";
import { createTwoFactorFlow, type TwoFactorFlow, type TwoFactorStart } from "./two-factor.js";

export interface AuthClientOptions {
  /** Where the auth routes are mounted, e.g. `https://app.example/api/auth` or `/api/auth` in a page. */
  baseUrl: string;
  /**
   * `cookie` (the default, for browsers): the server's HttpOnly cookies carry the tokens
   * (`credentials: "include"`). `header` (for Node and native apps): the client keeps the tokens
   * and sends them as headers; the server needs `allowHeaderAuthentication`.
   */
  mode?: "cookie" | "header";
  /** The `fetch` to use (the global one by default). */
  fetch?: typeof fetch;
  /** Header mode: where the tokens are kept (memory by default). */
  storage?: TokenStorage;
  /** Sent as `Accept-Language`: the language of the server's messages (a function: read at each call). */
  locale?: string | (() => string | undefined);
  /** Refresh this many seconds before the access token expires (30 by default; at most a quarter of its lifetime). */
  refreshMarginSeconds?: number;
  /** Web Locks (`navigator.locks` by default when present); `null` for none. */
  locks?: LockManagerLike | null;
  /** The channel refresh outcomes are shared on (a `BroadcastChannel` by default when present); `null` for none. */
  channel?: ChannelLike | null;
  /** The lock's and the channel's name (`portcullis-auth` by default). */
  name?: string;
  /** Milliseconds since the epoch (`Date.now` by default). */
  now?: () => number;
  /**
   * `signed-out` when the host knows this browser holds no session (e.g. it never signed in here):
   * a 401 then tries no refresh until a sign-in (here or in another tab). `unknown` by default.
   */
  initialState?: "unknown" | "signed-out";
}

/** The defaults the browser offers: `navigator.locks` and a `BroadcastChannel`. */
function browserDefaults(name: string) {
  const scope = globalThis as unknown as {
    navigator?: { locks?: LockManagerLike };
    BroadcastChannel?: new (name: string) => ChannelLike;
  };
  const channel = scope.BroadcastChannel ? new scope.BroadcastChannel(name) : undefined;
  // Node has BroadcastChannel too: unreferenced, it does not keep a script's process alive.
  (channel as { unref?: () => void } | undefined)?.unref?.();
  return { locks: scope.navigator?.locks, channel };
}

/**
 * A client of a Portcullis server's HTTP API: typed calls, refresh, session events, 2FA flows.
 * @example
 * ```ts
 * import { createAuthClient, isPortcullisError } from "@portcullis/client";
 *
 * const auth = createAuthClient({ baseUrl: "/api/auth" });
 * auth.on("sessionEnded", ({ code }) => console.warn("signed out elsewhere", code));
 * const answer = await auth.login({ email: "ada@example.com", password: "correct horse battery" });
 * if (answer.twoFactorRequired) await auth.twoFactor(answer).submit("123456");
 * try {
 *   console.log((await auth.me()).email);
 * } catch (error) {
 *   if (!isPortcullisError(error, "AUTHENTICATION_REQUIRED")) throw error;
 * }
 * ```
 */
export function createAuthClient(options: AuthClientOptions) {
  const mode = options.mode ?? "cookie";
  const storage = options.storage ?? memoryStorage();
  const name = options.name ?? "portcullis-auth";
  const defaults =
    options.locks === undefined || options.channel === undefined ? browserDefaults(name) : undefined;
  let session: Session | undefined;
  const send = createTransport({
    baseUrl: options.baseUrl,
    mode,
    fetch: (input, init) => fetchImpl(input, init),
    storage,
    locale:
      typeof options.locale === "function" ? options.locale : () => options.locale as string | undefined,
    stepUpToken: () => session?.stepUpToken(),
  });
  const live = createSession({
    send,
    mode,
    storage,
    locks: options.locks === undefined ? defaults?.locks : (options.locks ?? undefined),
    channel: options.channel === undefined ? defaults?.channel : (options.channel ?? undefined),
    lockName: name,
    now: options.now ?? Date.now,
    refreshMarginSeconds: options.refreshMarginSeconds ?? 30,
    kinds: ROUTE_AUTH,
    ...(options.initialState ? { initialState: options.initialState } : {}),
  });
  session = live;
  const fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const call = <K extends RouteKey>(key: K, init: CallInit<K>) =>
    callWithRefresh(live, { send, kinds: ROUTE_AUTH }, key, init).then((body) =>
      afterAnswer(live, mode, key, body, init),
    );
  return {
    /** Any route of the API by `"METHOD /path"`, typed by the route table. */
    request: call,
    /** `unknown` until a call tells, then `signed-in` or `signed-out`. */
    get state(): SessionState {
      return live.state();
    },
    /** Listens to a session event; returns the function that stops listening. */
    on: live.events.on as <E extends keyof AuthClientEvents>(
      name: E,
      listener: (payload: AuthClientEvents[E]) => void,
    ) => () => void,
    /** Refreshes now (one refresh at a time, across tabs). */
    refresh: () => live.refresher.refresh(),
    /**
     * The user is active (wire it to the page's input events): the next refresh may go ahead, and
     * one is made now when the access token has lapsed or soon will. Without activity since the
     * last refresh the client refreshes for no `background` call, so a tab left alone signs out
     * once the server's idle timeout has passed. Resolves when that refresh settled.
     */
    touch: () => touch(live),
    /**
     * `fetch` for the host's own routes with the session's access token (cookies, or a bearer
     * header in header mode); a 401 is retried once after one refresh. Resolves to the answer.
     */
    fetch: createHostFetch({ session: live, mode, storage, fetch: fetchImpl }),
    /** The 2FA flow of a login's or a step-up's `twoFactorRequired: true` answer. */
    twoFactor: <S extends TwoFactorStart>(start: S): TwoFactorFlow<S> => createTwoFactorFlow(start, call),
    /** The URL a browser goes to for an identity provider's sign-in (or with `stepUp`, a step-up). */
    authorizeUrl: (provider: string, query: { returnTo?: string; stepUp?: boolean } = {}) =>
      urlOf(
        options.baseUrl,
        "GET /oauth/:provider/authorize",
        { provider },
        { returnTo: query.returnTo, stepUp: query.stepUp ? "1" : undefined },
      ),
    ...accountCalls(call),
    ...settingsCalls(call),
    ...selfServiceCalls(call),
    ...adminCalls(call),
    ...passkeyCalls(call),
    ...organizationCalls(call),
    ...apiKeyCalls(call),
  };
}

export type AuthClient = ReturnType<typeof createAuthClient>;
type Call = <K extends RouteKey>(key: K, init: CallInit<K>) => Promise<Routes[K]["response"]>;

/** What the client keeps of an answer: tokens, the session's state, the step-up token. */
function afterAnswer<K extends RouteKey>(
  session: Session,
  mode: string,
  key: K,
  body: Routes[K]["response"],
  init: CallInit<K>,
) {
  const answer = body as Partial<Record<string, unknown>>;
  if (answer.twoFactorRequired === false && answer.user && "accessToken" in answer) {
    const { accessToken, refreshToken, deviceToken, user } = answer as unknown as SignedInResponse;
    if (mode === "header") session.setTokens({ accessToken, refreshToken, deviceToken: deviceToken ?? null });
    session.signIn(user);
  } else if (key === "POST /organizations/:id/activate") {
    session.adoptAccessToken((answer.accessToken as string | null | undefined) ?? null);
  } else if (answer.twoFactorRequired === false && "stepUpToken" in answer) {
    session.setStepUpToken(answer.stepUpToken as string | null);
  } else if (
    key === "POST /logout" ||
    key === "DELETE /me" ||
    (key === "DELETE /sessions" && (init.query as { others?: string } | undefined)?.others !== "true")
  ) {
    session.signOut("logout");
  }
  return body;
}

/** Sign-up, sign-in, sessions, activity, emailed links. */
function accountCalls(call: Call) {
  return {
    register: (body: api.RegisterInput) => call("POST /register", { body }),
    login: (body: api.LoginInput) => call("POST /login", { body }),
    /** Mails a sign-in link and code to `email` (the server's `emailSignIn`); the same answer for any address. */
    requestEmailSignIn: (email: string) => call("POST /email-sign-in/request", { body: { email } }),
    /** Signs in with an emailed link's token, or the address and its emailed code (then as `login`). */
    signInWithEmail: (
      input: { token: string } | { email: string; code: string },
      options: { rememberMe?: boolean } = {},
    ) => call("POST /email-sign-in", { body: { ...input, ...options } }),
    logout: () => call("POST /logout", {}),
    me: () => call("GET /me", {}),
    sessions: {
      list: () => call("GET /sessions", {}),
      revoke: (id: string) => call("DELETE /sessions/:id", { params: { id } }),
      revokeOthers: () => call("DELETE /sessions", { query: { others: "true" } }),
      revokeAll: () => call("DELETE /sessions", { query: {} }),
    },
    activity: (query: { cursor?: string; limit?: number } = {}) => call("GET /activity", { query }),
    stepUp: (body: api.StepUpInput) => call("POST /step-up", { body }),
    passwordReset: {
      request: (body: api.EmailInput) => call("POST /password/reset-request", { body }),
      cooldown: (email: string) => call("GET /password/reset/cooldown", { query: { email } }),
      confirm: (token: string, body: api.ResetPasswordInput) =>
        call("POST /password/reset", { body, query: { token } }),
    },
    verification: {
      send: () => call("POST /email/verification/send", {}),
      cooldown: () => call("GET /email/verification/cooldown", {}),
      verify: (token: string) => call("POST /email/verification", { query: { token } }),
    },
  };
}

/** The 2FA settings and identity providers (each needs a step-up first). */
function settingsCalls(call: Call) {
  return {
    twoFactorSettings: {
      totpSetup: () => call("GET /2fa/totp/setup", {}),
      confirmTotp: (body: api.ConfirmTotpInput) => call("POST /2fa/totp/setup", { body }),
      disableTotp: () => call("DELETE /2fa/totp", {}),
      sendEmailCode: () => call("POST /2fa/email/send", {}),
      emailCooldown: () => call("GET /2fa/email/cooldown", {}),
      enableEmail: (body: api.CodeInput) => call("POST /2fa/email/enable", { body }),
      disableEmail: () => call("DELETE /2fa/email", {}),
      setPreferredMethod: (body: api.PreferredMethodInput) => call("POST /2fa/preferred-method", { body }),
    },
    identityProviders: {
      list: () => call("GET /oauth/providers", {}),
      link: (provider: string, body: { returnTo?: string } = {}) =>
        call("POST /oauth/:provider/link", { params: { provider }, body }),
      unlink: (provider: string) => call("DELETE /oauth/:provider", { params: { provider } }),
    },
  };
}

/** The account's own self-service: password and address changes, deletion, export (the last three need a step-up). */
function selfServiceCalls(call: Call) {
  return {
    account: {
      changePassword: (body: api.ChangePasswordInput) => call("POST /password/change", { body }),
      requestEmailChange: (body: api.EmailChangeInput) => call("POST /email/change", { body }),
      confirmEmailChange: (token: string) => call("POST /email/change/confirm", { query: { token } }),
      delete: () => call("DELETE /me", {}),
      export: () => call("GET /me/export", {}),
    },
  };
}

/**
 * The back office (docs/back-office.md): for an account the server's `admin.authorize` allows,
 * after a step-up (403 `ADMIN_REQUIRED` for anyone else, 401 `STEP_UP_REQUIRED` without a step-up).
 */
function adminCalls(call: Call) {
  const user = (id: string) => ({ params: { id } });
  return {
    admin: {
      listUsers: (query: { query?: string; cursor?: string; limit?: number } = {}) =>
        call("GET /admin/users", { query }),
      getUser: (id: string) => call("GET /admin/users/:id", user(id)),
      lockUser: (id: string, body: { reason?: string } = {}) =>
        call("POST /admin/users/:id/lock", { ...user(id), body }),
      unlockUser: (id: string) => call("POST /admin/users/:id/unlock", user(id)),
      revokeSessions: (id: string) => call("DELETE /admin/users/:id/sessions", user(id)),
      requirePasswordChange: (id: string) => call("POST /admin/users/:id/require-password-change", user(id)),
      /**
       * A session as the user for at most an hour. In cookie mode the server sets this browser's
       * session cookies (the tokens are null in the answer): the page is then the user's.
       */
      impersonate: (id: string) => call("POST /admin/users/:id/impersonate", user(id)),
      listOrganizations: (query: { query?: string; cursor?: string; limit?: number } = {}) =>
        call("GET /admin/organizations", { query }),
    },
  };
}

/** The account's passkeys (renaming and removing need a step-up). The ceremonies are in `passkeys.ts`. */
function passkeyCalls(call: Call) {
  return {
    passkeys: {
      list: () => call("GET /passkeys", {}),
      rename: (id: string, name: string) => call("PATCH /passkeys/:id", { params: { id }, body: { name } }),
      delete: (id: string) => call("DELETE /passkeys/:id", { params: { id } }),
    },
  };
}

/**
 * Organizations (docs/organizations.md), with the server's `organizations` on. `activate` takes
 * the answer's new access token as a refresh's: the next call names the organization.
 */
function organizationCalls(call: Call) {
  const org = (id: string) => ({ params: { id } });
  return {
    organizations: {
      create: (body: Routes["POST /organizations"]["body"]) => call("POST /organizations", { body }),
      list: () => call("GET /organizations", {}),
      get: (id: string) => call("GET /organizations/:id", org(id)),
      update: (id: string, body: Routes["PATCH /organizations/:id"]["body"]) =>
        call("PATCH /organizations/:id", { ...org(id), body }),
      /** Owners only, after a step-up. */
      delete: (id: string) => call("DELETE /organizations/:id", org(id)),
      activate: (id: string) => call("POST /organizations/:id/activate", org(id)),
      members: (id: string, query: { cursor?: string; limit?: number } = {}) =>
        call("GET /organizations/:id/members", { ...org(id), query }),
      changeMemberRole: (id: string, userId: string, role: string) =>
        call("PATCH /organizations/:id/members/:userId", { params: { id, userId }, body: { role } }),
      /** Removes a member, or leaves (the caller's own user id). */
      removeMember: (id: string, userId: string) =>
        call("DELETE /organizations/:id/members/:userId", { params: { id, userId } }),
      invite: (id: string, body: Routes["POST /organizations/:id/invitations"]["body"]) =>
        call("POST /organizations/:id/invitations", { ...org(id), body }),
      invitations: (id: string) => call("GET /organizations/:id/invitations", org(id)),
      revokeInvitation: (id: string, invitationId: string) =>
        call("DELETE /organizations/:id/invitations/:invitationId", { params: { id, invitationId } }),
      /** The caller's own pending invitations. */
      received: () => call("GET /invitations", {}),
      accept: (token: string) => call("POST /invitations/accept", { body: { token } }),
      decline: (token: string) => call("POST /invitations/decline", { body: { token } }),
      roles: (id: string) => call("GET /organizations/:id/roles", org(id)),
      createRole: (id: string, body: Routes["POST /organizations/:id/roles"]["body"]) =>
        call("POST /organizations/:id/roles", { ...org(id), body }),
      updateRole: (id: string, role: string, permissions: string[]) =>
        call("PATCH /organizations/:id/roles/:role", { params: { id, role }, body: { permissions } }),
      deleteRole: (id: string, role: string) =>
        call("DELETE /organizations/:id/roles/:role", { params: { id, role } }),
    },
  };
}

/**
 * API keys (docs/api-keys.md), with the server's `apiKeys` on: the user's own, or with
 * `organizationId` an organization's (`api-key:manage` there).
 */
function apiKeyCalls(call: Call) {
  return {
    apiKeys: {
      /**
       * A new key, after a step-up (the step-up token the client holds is sent, as for every
       * step-up call). The answer's `key` is the only time the key is shown.
       */
      create: (body: api.CreateApiKeyInput) => call("POST /api-keys", { body }),
      /** The user's own keys, or with `organizationId` the organization's; newest first. */
      list: (query: { organizationId?: string } = {}) => call("GET /api-keys", { query }),
      /** Deletes a key: refused at once wherever it is used. */
      delete: (id: string) => call("DELETE /api-keys/:id", { params: { id } }),
    },
  };
}
