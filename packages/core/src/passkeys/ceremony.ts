import { AuthError, guardPort } from "../errors.js";
import type { SecurityEvents, SecurityEventType } from "../events.js";
import type { Call, Principal, RequestContext } from "../model.js";
import {
  PASSKEY_CHALLENGE_KEPT_MS,
  PASSKEY_CHALLENGE_TTL_MS,
  type ResolvedWebAuthn,
} from "../options/webauthn-options.js";
import type { PasskeyRecord, PasskeyStore } from "../ports/passkey-store.js";
import { assertPeerInstalled } from "../support/optional-peer.js";
import { PASSKEY_CHALLENGE_PURPOSE } from "../tokens/purposes.js";
import { hashToken, randomToken } from "../tokens/random.js";
import { consumeSingleUseToken, type TokenDeps } from "../tokens/single-use-token.js";

export { PASSKEY_CHALLENGE_TTL_MS };

type SimpleWebAuthn = typeof import("@simplewebauthn/server");

/** The public-key algorithms a passkey may use (COSE): EdDSA, ES256, RS256, whatever the runtime supports besides. */
export const PASSKEY_ALGORITHMS = [-8, -7, -257];

/**
 * Throws at start-up (from `createAuth`) when `@simplewebauthn/server`, the optional peer
 * dependency passkeys need, cannot be found from here.
 */
export function assertSimpleWebAuthnInstalled(
  resolve: (specifier: string) => string = (specifier) => import.meta.resolve(specifier),
): void {
  assertPeerInstalled("webauthn", "@simplewebauthn/server", resolve);
}

let loading: Promise<SimpleWebAuthn> | undefined;

/** `@simplewebauthn/server`, an optional peer dependency, loaded on first use only. */
function loadSimpleWebAuthn(): Promise<SimpleWebAuthn> {
  loading ??= import("@simplewebauthn/server").catch((error: unknown) => {
    loading = undefined;
    throw new AuthError("INTERNAL_ERROR", {
      cause: new Error("webauthn needs the @simplewebauthn/server package", { cause: error }),
    });
  });
  return loading;
}

/** What the ceremonies need from the context. */
export interface PasskeyDeps extends TokenDeps {
  events: SecurityEvents;
  /** Present whenever `webauthn` is configured. */
  passkeys: PasskeyStore | undefined;
  /** The `webauthn` option with its defaults; undefined when passkeys are off. */
  webauthn: ResolvedWebAuthn | undefined;
}

/** What every passkey use case works with; `NOT_FOUND` when passkeys are not configured. */
export interface Passkeys {
  store: PasskeyStore;
  config: ResolvedWebAuthn;
  lib: SimpleWebAuthn;
}

export async function passkeysOf(ctx: PasskeyDeps): Promise<Passkeys> {
  const { passkeys: store, webauthn: config } = ctx;
  if (!store || !config) throw new AuthError("NOT_FOUND");
  return { store, config, lib: await loadSimpleWebAuthn() };
}

/** Whom a challenge is for: the browser (by its challenge cookie) for a sign-in, the user and session otherwise. */
export type ChallengeBinding =
  | { kind: "sign-in"; browser: string | undefined; userId?: string | undefined }
  | { kind: "register" | "step-up"; principal: Principal };

/** A refused ceremony: the event of its kind with `passkey:<why>`, then the error. */
/** Who a refusal's event is about. */
type RefusalDetails = {
  request: RequestContext;
  userId?: string | null | undefined;
  sessionId?: string | undefined;
};

export function refuse(
  ctx: PasskeyDeps,
  kind: ChallengeBinding["kind"],
  details: RefusalDetails,
  why: string,
  code: AuthError["code"],
): never {
  const type: SecurityEventType =
    kind === "sign-in" ? "login.failed" : kind === "step-up" ? "step_up.failed" : "passkey.failed";
  ctx.events.emit(type, {
    ...details.request,
    userId: details.userId ?? null,
    sessionId: details.sessionId ?? null,
    reason: `passkey:${why}`,
  });
  throw new AuthError(code);
}

/**
 * A new challenge (256 random bits, base64url) for `binding`, stored for 5 minutes as a
 * single-use token. A sign-in's challenge also returns the value of the browser's challenge
 * cookie, whose hash the record keeps: only that browser can answer it.
 */
export async function issueChallenge(
  ctx: PasskeyDeps,
  binding: ChallengeBinding,
): Promise<{ challenge: string; bytes: Uint8Array<ArrayBuffer>; browser?: string }> {
  const challenge = randomToken(32);
  const browser = binding.kind === "sign-in" ? randomToken(32) : undefined;
  const data: Record<string, string> =
    binding.kind === "sign-in"
      ? { kind: binding.kind, browser: hashToken(browser as string) }
      : { kind: binding.kind, sessionId: binding.principal.sessionId };
  const userId = binding.kind === "sign-in" ? (binding.userId ?? "") : binding.principal.userId;
  await guardPort("DATABASE_FAILURE", () =>
    ctx.singleUseTokens.saveToken(
      {
        purpose: PASSKEY_CHALLENGE_PURPOSE,
        tokenHash: hashToken(challenge),
        userId,
        expiresAt: ctx.clock.now() + PASSKEY_CHALLENGE_TTL_MS,
        data,
      },
      PASSKEY_CHALLENGE_KEPT_MS,
    ),
  );
  const bytes = new Uint8Array(Buffer.from(challenge, "base64url"));
  return browser === undefined ? { challenge, bytes } : { challenge, bytes, browser };
}

/** The `challenge` a response's client data names, or undefined when it cannot be read. */
function challengeOf(clientDataJSON: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(clientDataJSON, "base64url").toString("utf8"));
    const challenge = (parsed as { challenge?: unknown } | null)?.challenge;
    return typeof challenge === "string" ? challenge : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Takes the challenge a response answers: consumed atomically (of concurrent answers, one gets
 * it), then checked against `binding`. Refused: unknown or used (`PASSKEY_CHALLENGE_INVALID`),
 * expired (`PASSKEY_CHALLENGE_EXPIRED`), of another kind, browser, user or session
 * (`PASSKEY_CHALLENGE_INVALID`). Returns the challenge and the user id it was issued for ("" for a
 * discoverable sign-in).
 */
export async function takeChallenge(
  ctx: PasskeyDeps,
  clientDataJSON: string,
  binding: ChallengeBinding,
  request: RequestContext,
): Promise<{ challenge: string; userId: string }> {
  const principal = binding.kind === "sign-in" ? undefined : binding.principal;
  const details = { request, userId: principal?.userId, sessionId: principal?.sessionId };
  const challenge = challengeOf(clientDataJSON);
  const taken = await consumeSingleUseToken(ctx, PASSKEY_CHALLENGE_PURPOSE, challenge);
  if (taken === null || challenge === undefined)
    refuse(ctx, binding.kind, details, "challenge_unknown", "PASSKEY_CHALLENGE_INVALID");
  const { record, expired } = taken;
  const data = record.data ?? {};
  const bound =
    data.kind === binding.kind &&
    (binding.kind === "sign-in"
      ? binding.browser !== undefined && data.browser === hashToken(binding.browser)
      : record.userId === binding.principal.userId && data.sessionId === binding.principal.sessionId);
  if (!bound) refuse(ctx, binding.kind, details, "other_browser", "PASSKEY_CHALLENGE_INVALID");
  if (expired) refuse(ctx, binding.kind, details, "challenge_expired", "PASSKEY_CHALLENGE_EXPIRED");
  return { challenge, userId: record.userId };
}

/**
 * `takeChallenge` for a ceremony of the signed-in principal in its session (registration,
 * step-up): the call's request, the details its refusals and events carry, and the challenge.
 */
export async function takeSessionChallenge(
  ctx: PasskeyDeps,
  call: Call,
  kind: "register" | "step-up",
  principal: Principal,
  clientDataJSON: string,
): Promise<{ request: RequestContext; details: RefusalDetails; challenge: string }> {
  const request = call.request ?? {};
  const details = { request, userId: principal.userId, sessionId: principal.sessionId };
  const { challenge } = await takeChallenge(ctx, clientDataJSON, { kind, principal }, request);
  return { request, details, challenge };
}

/** Why `@simplewebauthn/server` refused a response, as the event's reason says it. */
export function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/top origin|origin/i.test(message)) return "origin";
  if (/RP ID/.test(message)) return "rp_id";
  if (/User verification/i.test(message)) return "user_verification";
  if (/counter/i.test(message)) return "counter";
  if (/challenge/i.test(message)) return "challenge";
  return "invalid";
}

/** The assertion of a sign-in or step-up, as `@simplewebauthn/server` takes it. */
export type AssertionResponse = Parameters<SimpleWebAuthn["verifyAuthenticationResponse"]>[0]["response"];

/**
 * Verifies an assertion of `passkey` against `challenge` (origin, RP ID, user verification,
 * counter, signature) and records the use (a compare-and-set on the counter). Refused with
 * `PASSKEY_VERIFICATION_FAILED` and the event of `kind`.
 */
export async function verifyAssertion(
  ctx: PasskeyDeps,
  { store, config, lib }: Passkeys,
  input: { response: AssertionResponse; challenge: string; passkey: PasskeyRecord },
  kind: "sign-in" | "step-up",
  details: { request: RequestContext; sessionId?: string | undefined },
): Promise<void> {
  const { response, challenge, passkey } = input;
  const refused = (why: string): never =>
    refuse(ctx, kind, { ...details, userId: passkey.userId }, why, "PASSKEY_VERIFICATION_FAILED");
  let verified: Awaited<ReturnType<SimpleWebAuthn["verifyAuthenticationResponse"]>>;
  try {
    verified = await lib.verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: config.origins,
      expectedRPID: config.rpId,
      requireUserVerification: true,
      credential: {
        id: passkey.id,
        publicKey: new Uint8Array(Buffer.from(passkey.publicKey, "base64url")),
        counter: passkey.counter,
        transports: passkey.transports as never,
      },
    });
  } catch (error) {
    return refused(reasonOf(error));
  }
  if (!verified.verified) return refused("signature");
  const { newCounter, credentialBackedUp } = verified.authenticationInfo;
  const recorded = await guardPort("DATABASE_FAILURE", () =>
    store.recordUse(passkey.id, {
      expectedCounter: passkey.counter,
      counter: newCounter,
      backedUp: credentialBackedUp,
      usedAt: ctx.clock.now(),
    }),
  );
  // Another use of this passkey moved the counter since it was read: one of the two is a clone.
  if (!recorded) refused("counter");
}

/** A passkey as its owner sees it: never the public key. */
export interface PasskeyView {
  id: string;
  name: string;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601, or null before its first use. */
  lastUsedAt: string | null;
  backupEligible: boolean;
  backedUp: boolean;
  transports: string[];
}

export function toPasskeyView(passkey: PasskeyRecord): PasskeyView {
  return {
    id: passkey.id,
    name: passkey.name,
    createdAt: new Date(passkey.createdAt).toISOString(),
    lastUsedAt: passkey.lastUsedAt === null ? null : new Date(passkey.lastUsedAt).toISOString(),
    backupEligible: passkey.backupEligible,
    backedUp: passkey.backedUp,
    transports: [...passkey.transports],
  };
}
