import { randomInt } from "node:crypto";
import { type ErrorCode, guardPort, isInfrastructureFailure } from "../errors.js";
import type { Clock } from "../ports/clock.js";
import type { Logger } from "../ports/logger.js";
import type { SingleUseTokenStore, TokenRecord } from "../ports/single-use-token-store.js";
import { opaqueToken } from "../validation.js";
import { TOKEN_CLAIM_LEASE_MS } from "./purposes.js";
import { hashToken, randomToken } from "./random.js";

/** What single-use tokens need: where they are kept, the time, and a logger for give-back failures. */
export interface TokenDeps {
  singleUseTokens: SingleUseTokenStore;
  clock: Clock;
  logger: Logger;
}

/**
 * Saves a fresh 6-digit code for `token.userId` (an emailed sign-in's or second factor's): only
 * `hash(code)` is stored, under `token.purpose`, expiring `ttlMs` from now and kept `keptMs` in
 * the store. `DATABASE_FAILURE` when the store fails. Returns the code.
 */
export async function saveEmailedCode(
  deps: { singleUseTokens: SingleUseTokenStore; clock: { now(): number } },
  { purpose, userId, data, hash, ttlMs }: EmailedCode,
  keptMs: number,
  options?: { replaceOthers: true },
): Promise<string> {
  const code = String(randomInt(0, 1_000_000)).padStart(6, "0");
  const expiresAt = deps.clock.now() + ttlMs;
  const record = { purpose, tokenHash: hash(code), userId, expiresAt, ...(data ? { data } : {}) };
  await guardPort("DATABASE_FAILURE", () => deps.singleUseTokens.saveToken(record, keptMs, options));
  return code;
}

/** An emailed code's token: its record's fields, how the code is hashed, how long it works. */
interface EmailedCode extends Pick<TokenRecord, "purpose" | "userId" | "data"> {
  hash: (code: string) => string;
  ttlMs: number;
}

/**
 * Mints an opaque single-use token (256 random bits) and stores only its SHA-256 with an expiry,
 * kept `graceMs` past it so an expired token can be told from an unknown one. Returns the token.
 */
export async function issueSingleUseToken(
  ctx: TokenDeps,
  options: {
    purpose: string;
    userId: string;
    ttlMs: number;
    data?: TokenRecord["data"];
    graceMs?: number;
    /** A newer token deletes the user's older ones of the same purpose. */
    replaceOthers?: boolean;
    /** The error code when the store fails. */
    failureCode: ErrorCode;
  },
): Promise<string> {
  const token = randomToken(32);
  const record: TokenRecord = {
    purpose: options.purpose,
    tokenHash: hashToken(token),
    userId: options.userId,
    expiresAt: ctx.clock.now() + options.ttlMs,
    ...(options.data ? { data: options.data } : {}),
  };
  await guardPort(options.failureCode, () =>
    ctx.singleUseTokens.saveToken(record, options.ttlMs + (options.graceMs ?? 0), {
      replaceOthers: options.replaceOthers ?? false,
    }),
  );
  return token;
}

/**
 * Consumes a presented token atomically (of concurrent calls, one gets it). Null when it is
 * malformed or unknown (or already used); `expired` when it was found past its expiry.
 */
export async function consumeSingleUseToken(
  ctx: TokenDeps,
  purpose: string,
  token: string | undefined,
): Promise<{ record: TokenRecord; expired: boolean } | null> {
  if (!opaqueToken.safeParse(token).success) return null;
  const record = await guardPort("DATABASE_FAILURE", () =>
    ctx.singleUseTokens.consumeToken(purpose, hashToken(token as string)),
  );
  return record ? { record, expired: record.expiresAt <= ctx.clock.now() } : null;
}

/** Puts a consumed token back (e.g. a 2FA token after a wrong code), kept `graceMs` past its expiry. */
export async function restoreToken(ctx: TokenDeps, record: TokenRecord, graceMs = 0): Promise<void> {
  const ttlMs = record.expiresAt - ctx.clock.now() + graceMs;
  await ctx.singleUseTokens
    .saveToken(record, Math.max(ttlMs, 1))
    .catch((error: unknown) =>
      ctx.logger.error(
        { event: "token.restore_failed", purpose: record.purpose, err: String(error) },
        "could not restore a token",
      ),
    );
}

/**
 * Does the work a consumed token authorizes. When any step of it fails with an infrastructure
 * error (a store, the mailer, encryption), the token is given back, so the user's link or code
 * still works on retry; answers about the input (a policy violation, a wrong code) keep it spent
 * unless the caller restores it.
 */
export async function spendToken<T>(
  ctx: TokenDeps,
  record: TokenRecord,
  work: () => Promise<T>,
  graceMs = 0,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isInfrastructureFailure(error)) await restoreToken(ctx, record, graceMs);
    throw error;
  }
}

/**
 * A token held by one request while it does the work the token authorizes: claimed in the store
 * (`SingleUseTokenStore.claimToken`), or, on a store without claims, consumed at once (the behaviour
 * before claims existed).
 */
export interface HeldToken {
  record: TokenRecord;
  expired: boolean;
  /** Deletes the token for good; a no-op when the store had no claims (it is gone already). */
  consume(): Promise<void>;
  /** Makes the token usable again at once (best effort: a failure is logged; the lease still ends). */
  release(): Promise<void>;
}

const warnedStores = new WeakSet<SingleUseTokenStore>();

/**
 * Holds a presented token for the work it authorizes: of concurrent calls, one gets it; the others
 * read it as unknown until the holder consumes or releases it or `leaseMs` passes. Null when it is
 * malformed, unknown, used or held; `expired` when it was found past its expiry.
 */
export async function holdSingleUseToken(
  ctx: TokenDeps,
  purpose: string,
  token: string | undefined,
  options: { graceMs?: number; leaseMs?: number } = {},
): Promise<HeldToken | null> {
  if (!opaqueToken.safeParse(token).success) return null;
  return holdTokenHash(ctx, purpose, hashToken(token as string), options);
}

/** `holdSingleUseToken` for a token stored under `tokenHash` (e.g. an emailed 2FA code, keyed by user and code). */
export async function holdTokenHash(
  ctx: TokenDeps,
  purpose: string,
  tokenHash: string,
  options: { graceMs?: number; leaseMs?: number } = {},
): Promise<HeldToken | null> {
  const { singleUseTokens: tokens } = ctx;
  if (!tokens.claimToken || !tokens.releaseToken) {
    if (!warnedStores.has(tokens)) {
      warnedStores.add(tokens);
      ctx.logger.warn(
        { event: "token.claims_unsupported" },
        "the SingleUseTokenStore has no claimToken/releaseToken: a link token is consumed before its work, so a crash mid-way can spend it (docs/stores.md)",
      );
    }
    const record = await guardPort("DATABASE_FAILURE", () => tokens.consumeToken(purpose, tokenHash));
    if (!record) return null;
    return {
      record,
      expired: record.expiresAt <= ctx.clock.now(),
      consume: async () => {},
      release: () => restoreToken(ctx, record, options.graceMs ?? 0),
    };
  }
  const claim = tokens.claimToken.bind(tokens);
  const releaseToken = tokens.releaseToken.bind(tokens);
  const record = await guardPort("DATABASE_FAILURE", () =>
    claim(purpose, tokenHash, options.leaseMs ?? TOKEN_CLAIM_LEASE_MS),
  );
  if (!record) return null;
  return {
    record,
    expired: record.expiresAt <= ctx.clock.now(),
    consume: async () => {
      await guardPort("DATABASE_FAILURE", () => tokens.consumeToken(purpose, tokenHash));
    },
    release: () =>
      releaseToken(purpose, tokenHash).catch((error: unknown) =>
        ctx.logger.error(
          { event: "token.release_failed", purpose, err: String(error) },
          "could not release a claimed token (it is usable again when the lease ends)",
        ),
      ),
  };
}
