import type { RequestContext, User } from "../model.js";
import { toUser } from "../model.js";
import type { Clock } from "../ports/clock.js";
import type { SessionRecord } from "../ports/session-store.js";
import type { UserRecord } from "../ports/user-store.js";
import { describeDevice } from "../support/user-agent.js";
import type { AccessTokenCodec } from "../tokens/access-token.js";
import { randomId } from "../tokens/random.js";
import { issueRefreshToken } from "../tokens/refresh-token.js";
import { accessTokenTtlFor } from "./impersonation.js";
import {
  accessTokenTtlSeconds,
  type LifetimeOptions,
  newAccessTokenId,
  type SessionLifecycleDeps,
  type SignInRecord,
  sessionLifetimes,
  storeNewSession,
} from "./session-lifecycle.js";

/** A completed sign-in: new tokens for a new session. */
export interface SessionTokens {
  user: User;
  accessToken: string;
  refreshToken: string;
  sessionId: string;
  /**
   * False when the user chose not to stay signed in (`rememberMe: false`): the HTTP layer then sets
   * the auth cookies without Max-Age (browser-session cookies), at sign-in and on every refresh.
   */
  rememberMe: boolean;
}

/**
 * `SessionTokens` plus the stored session record, for callers inside the core; `signInRead` when
 * the session's write also read the user and recorded the sign-in (`storeNewSession`).
 */
export type StartedSession = SessionTokens & {
  record: SessionRecord;
  signInRead: { read: UserRecord | null } | null;
};

/** What starting a session needs. */
export interface SessionDeps extends SessionLifecycleDeps {
  accessTokens: AccessTokenCodec;
  clock: Clock;
  options: LifetimeOptions;
}

/**
 * Creates a session with fresh tokens for a user who has fully authenticated. Every successful
 * authentication goes through here, so a token or cookie planted before it is useless after.
 * `rememberMe: false` is kept on the session, so its refreshes keep browser-session cookies.
 */
export async function startSession(
  ctx: SessionDeps,
  user: UserRecord,
  stated: { browser?: string | undefined; os?: string | undefined } | undefined,
  request: RequestContext,
  rememberMe = true,
  /** An admin's impersonation (`admin.impersonate`): who started it; its tokens end within the hour. */
  impersonatedBy?: string,
  /** A sign-in's end, to write with the session where the stores can (`storeNewSession`). */
  signIn?: SignInRecord,
): Promise<StartedSession> {
  const sessionId = ctx.sessions.createSessionId?.(user.id) ?? randomId();
  const jti = newAccessTokenId(ctx, sessionId);
  const refresh = issueRefreshToken(sessionId);
  const device = describeDevice(stated, request.userAgent);
  const now = ctx.clock.now();
  const record: SessionRecord = {
    id: sessionId,
    userId: user.id,
    browser: device.browser,
    os: device.os,
    ip: request.ip ?? null,
    createdAt: now,
    lastActiveAt: now,
    refreshTokenHash: refresh.hash,
    accessTokenJti: jti,
    ...(rememberMe ? {} : { rememberMe: false }),
    ...(impersonatedBy !== undefined ? { impersonatedBy } : {}),
  };
  const lifetimes = sessionLifetimes(ctx);
  const signInRead = await storeNewSession(ctx, record, lifetimes, signIn);
  // Within the session's limits, and an impersonation's hour.
  const ttlSeconds = Math.min(
    accessTokenTtlSeconds(lifetimes, record, now),
    accessTokenTtlFor(record, now) ?? Number.POSITIVE_INFINITY,
  );
  const accessToken =
    impersonatedBy === undefined
      ? await ctx.accessTokens.sign({ userId: user.id, sessionId, jti }, ttlSeconds)
      : await ctx.accessTokens.sign({ userId: user.id, sessionId, jti, actor: impersonatedBy }, ttlSeconds);
  return {
    user: toUser(user),
    accessToken,
    refreshToken: refresh.token,
    sessionId,
    rememberMe,
    record,
    signInRead,
  };
}
