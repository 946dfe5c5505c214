import { randomInt } from "node:crypto";
import type {
  HttpResponse,
  OAuthClientRecord,
  OAuthDevicePoll,
  OAuthDeviceRecord,
  RouteInput,
} from "@portcullis/core";
import { resourcesOf, scopesFor } from "./authorization-request.js";
import { clientCredentialsOf, DEVICE_CODE_GRANT } from "./clients.js";
import { liveUser, tokenResponse } from "./issue-tokens.js";
import { OAuthError } from "./oauth-error.js";
import { hashOf, oauthJson, type ProviderContext, randomToken, withQuery } from "./provider-context.js";
import { newRefreshToken, oauthRefusal } from "./token-endpoint.js";

/** The letters of a user code: upper-case consonants without look-alikes (RFC 8628 §6.1). */
const USER_CODE_ALPHABET = "BCDFGHJKLMNPQRSTVWXZ";
const USER_CODE_LENGTH = 8;
/** A normalized user code: upper case, no dash, no spaces. */
const USER_CODE = /^[BCDFGHJKLMNPQRSTVWXZ]{8}$/;
/** The seconds a device waits between polls, at first (RFC 8628 §3.2). */
const POLL_INTERVAL_SECONDS = 5;
/** How many wrong user codes a signed-in user may enter in `ATTEMPT_WINDOW_MS`. */
const MAX_WRONG_CODES = 10;
const ATTEMPT_WINDOW_MS = 10 * 60_000;
/** Tries at a user code that no live authorization holds (a collision is one in 2.5·10¹⁰). */
const CREATE_TRIES = 5;

/** A new user code: 8 letters of `USER_CODE_ALPHABET`, about 34 bits. */
function newUserCode(): string {
  let code = "";
  for (let index = 0; index < USER_CODE_LENGTH; index++)
    code += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  return code;
}

/** A user code as the page shows it: `XXXX-XXXX`. */
const displayed = (code: string) => `${code.slice(0, 4)}-${code.slice(4)}`;

/**
 * The stored hash of a user code as the user typed it: upper case, dashes and spaces removed. A
 * value that cannot be a user code is refused here, before any store is asked.
 */
function userCodeHashOf(value: unknown): string {
  const normalized =
    typeof value === "string" && value.length <= 64 ? value.toUpperCase().replace(/[-\s]/g, "") : "";
  if (!USER_CODE.test(normalized))
    throw new OAuthError("invalid_request", "userCode must be 8 letters, as XXXX-XXXX");
  return hashOf(normalized);
}

/** 429 `slow_down`: the user entered too many wrong user codes lately. */
class TooManyWrongCodes extends OAuthError {
  readonly retryAfterSeconds: number;

  constructor(remainingMs: number) {
    const seconds = Math.max(1, Math.ceil(remainingMs / 1000));
    super("slow_down", `too many wrong user codes: try again in ${seconds} s`, 429);
    this.retryAfterSeconds = seconds;
  }
}

/** A refusal of a route of the device page or of the device authorization endpoint. */
function refused(error: unknown): HttpResponse {
  const response = oauthRefusal(error);
  if (error instanceof TooManyWrongCodes)
    response.headers = { ...response.headers, "retry-after": String(error.retryAfterSeconds) };
  return response;
}

/**
 * Runs `attempt` (a look-up or a decision by user code) as one of the user's tries: counted before
 * it runs and given back when it finds its authorization, so that at most `MAX_WRONG_CODES` wrong
 * codes per user go through in `ATTEMPT_WINDOW_MS`, however many come at once; past that every try
 * is refused, a right code too, until the window ends. A try that finds nothing is `invalid_request`.
 */
async function asAttempt<T>(
  ctx: ProviderContext,
  userId: string,
  attempt: () => Promise<T | null>,
): Promise<T> {
  const { cooldowns } = ctx.auth.options.stores;
  const key = `oauth-device-user-code:${userId}`;
  const { count, remainingMs } = await cooldowns.hit(key, ATTEMPT_WINDOW_MS);
  if (count > MAX_WRONG_CODES) throw new TooManyWrongCodes(remainingMs);
  const found = await attempt();
  if (found === null)
    throw new OAuthError("invalid_request", "the user code is unknown, answered already or expired");
  await cooldowns.refundHit(key);
  return found;
}

/** A new device authorization for `client`: its device code and user code. */
async function createDevice(
  ctx: ProviderContext,
  client: OAuthClientRecord,
  form: URLSearchParams,
): Promise<{ deviceCode: string; userCode: string }> {
  const scopes = scopesFor(client, form.get("scope"));
  const resources = resourcesOf(ctx, form.getAll("resource"));
  for (let tries = 0; tries < CREATE_TRIES; tries++) {
    const deviceCode = randomToken();
    const userCode = newUserCode();
    const device: OAuthDeviceRecord = {
      deviceCodeHash: hashOf(deviceCode),
      userCodeHash: hashOf(userCode),
      clientId: client.clientId,
      scopes,
      resources,
      status: "pending",
      userId: null,
      authTime: null,
      intervalSeconds: POLL_INTERVAL_SECONDS,
      lastPolledAt: null,
      expiresAt: ctx.now() + ctx.lifetimes.device * 1000,
    };
    if (await ctx.oauth.createOAuthDevice(device)) return { deviceCode, userCode };
  }
  throw new OAuthError("temporarily_unavailable", "no free user code: try again");
}

/**
 * `POST <prefix>/oauth2/device_authorization` (RFC 8628 §3.1–3.2): the client authenticated as at
 * the token endpoint, with the device grant; the device code to poll with, the user code to show,
 * and the page where the user enters it.
 */
export async function deviceAuthorization(
  ctx: ProviderContext,
  input: RouteInput<"none">,
): Promise<HttpResponse> {
  try {
    const form = await input.form();
    const client = await ctx.clients.authenticate(clientCredentialsOf(input.request.headers, form));
    if (!client.grantTypes.includes(DEVICE_CODE_GRANT))
      throw new OAuthError("unauthorized_client", "the client may not use the device grant");
    const { deviceCode, userCode } = await createDevice(ctx, client, form);
    const verificationUri = `${ctx.appOrigin}${ctx.pages.device}`;
    return oauthJson(200, {
      device_code: deviceCode,
      user_code: displayed(userCode),
      verification_uri: verificationUri,
      verification_uri_complete: withQuery(verificationUri, { userCode: displayed(userCode) }),
      expires_in: ctx.lifetimes.device,
      interval: POLL_INTERVAL_SECONDS,
    });
  } catch (error) {
    return refused(error);
  }
}

/**
 * `GET <prefix>/oauth2/device?userCode=…`: what the device page shows for a pending user code
 * (the client, the scopes); 400 `invalid_request` for any other, 429 `slow_down` after too many.
 */
export async function showDevice(ctx: ProviderContext, input: RouteInput<"access">): Promise<HttpResponse> {
  try {
    const userCodeHash = userCodeHashOf(input.query.get("userCode"));
    const { device, client } = await asAttempt(ctx, input.principal.userId, async () => {
      const device = await ctx.oauth.findOAuthDevice(userCodeHash, ctx.now());
      const client = device === null ? null : await ctx.clients.get(device.clientId);
      return device === null || client === null ? null : { device, client };
    });
    return oauthJson(200, {
      client: { clientId: client.clientId, name: client.name },
      scopes: device.scopes,
    });
  } catch (error) {
    return refused(error);
  }
}

/** When the principal's session signed in (ms): its session's start. */
async function authTimeOf(ctx: ProviderContext, sessionId: string): Promise<number> {
  const session = await ctx.auth.options.stores.sessions.getSession(sessionId);
  return session?.createdAt ?? 0;
}

/** Remembers the user's consent to the device's client, widened to its scopes (as the consent page does). */
async function rememberConsent(ctx: ProviderContext, userId: string, device: OAuthDeviceRecord) {
  const now = ctx.now();
  const earlier = await ctx.oauth.getOAuthConsent(userId, device.clientId);
  await ctx.oauth.saveOAuthConsent({
    userId,
    clientId: device.clientId,
    scopes: [...new Set([...(earlier?.scopes ?? []), ...device.scopes])],
    createdAt: earlier?.createdAt ?? now,
    updatedAt: now,
  });
}

/**
 * `POST <prefix>/oauth2/device/verify { userCode, approve }`: the signed-in user approves or
 * denies a pending user code, once (of concurrent answers exactly one counts). Approval remembers
 * the consent. An impersonation session may not answer.
 */
export async function verifyDevice(ctx: ProviderContext, input: RouteInput<"access">): Promise<HttpResponse> {
  try {
    const body = (await input.body<{ userCode?: unknown; approve?: unknown } | null>()) ?? {};
    const { approve } = body;
    if (typeof approve !== "boolean")
      throw new OAuthError("invalid_request", "approve must be true or false");
    const { principal } = input;
    if (principal.impersonatedBy !== undefined)
      throw new OAuthError("access_denied", "an impersonation session grants no app access", 403);
    const userCodeHash = userCodeHashOf(body.userCode);
    const authTime = await authTimeOf(ctx, principal.sessionId);
    const device = await asAttempt(ctx, principal.userId, async () => {
      const device = await ctx.oauth.findOAuthDevice(userCodeHash, ctx.now());
      if (device === null) return null;
      const decision = { userId: principal.userId, approve, authTime };
      return (await ctx.oauth.decideOAuthDevice(userCodeHash, decision, ctx.now())) ? device : null;
    });
    if (approve) await rememberConsent(ctx, principal.userId, device);
    return oauthJson(200, { success: true, approved: approve });
  } catch (error) {
    return refused(error);
  }
}

/** What each poll that gives no tokens answers (RFC 8628 §3.5). */
const POLL_REFUSALS: Record<Exclude<OAuthDevicePoll["outcome"], "approved">, [string, string]> = {
  pending: ["authorization_pending", "the user has not answered yet"],
  slow_down: ["slow_down", "polled too soon: wait 5 s more between polls"],
  denied: ["access_denied", "the user denied the request"],
  expired: ["expired_token", "the device code has expired: start again"],
  absent: ["invalid_grant", "the device code is unknown or was used"],
};

/**
 * `grant_type=urn:ietf:params:oauth:grant-type:device_code` (RFC 8628 §3.4–3.5): one poll. An
 * approved authorization gives its tokens once (a random grant id, a refresh token when the
 * client has the refresh grant, an ID token with `openid`); anything else is an error to poll on
 * (`authorization_pending`, `slow_down`) or to stop at.
 */
export async function deviceCodeGrant(
  ctx: ProviderContext,
  client: OAuthClientRecord,
  form: URLSearchParams,
): Promise<HttpResponse> {
  const deviceCode = form.get("device_code") ?? "";
  if (deviceCode === "") throw new OAuthError("invalid_request", "device_code is required");
  if (!/^[A-Za-z0-9_-]{43}$/.test(deviceCode)) throw new OAuthError(...POLL_REFUSALS.absent);
  const now = ctx.now();
  const poll = await ctx.oauth.pollOAuthDevice(hashOf(deviceCode), now);
  if (poll.outcome !== "approved") throw new OAuthError(...POLL_REFUSALS[poll.outcome]);
  const { device } = poll;
  if (device.clientId !== client.clientId)
    throw new OAuthError("invalid_grant", "the device code was issued to another client");
  if (device.userId === null) throw new OAuthError(...POLL_REFUSALS.absent);
  const user = await liveUser(ctx, device.userId);
  const grantId = randomToken();
  const refreshToken = client.grantTypes.includes("refresh_token") ? newRefreshToken(grantId) : undefined;
  const grant = {
    clientId: client.clientId,
    userId: device.userId,
    scopes: device.scopes,
    resources: device.resources,
    authTime: device.authTime,
  };
  const created = await ctx.oauth.createOAuthGrant({
    ...grant,
    grantId,
    refreshHash: refreshToken === undefined ? null : hashOf(refreshToken),
    createdAt: now,
    expiresAt: now + ctx.lifetimes.refreshToken * 1000,
    revokedAt: null,
  });
  if (!created) throw new OAuthError("invalid_grant", "the client is gone");
  return tokenResponse(ctx, { ...grant, grantId, refreshToken }, user);
}
