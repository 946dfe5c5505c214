import type { AuthContext } from "../context.js";
import { type ErrorCode, guardPort } from "../errors.js";
import type { TokenRecord } from "../ports/session-store.js";
import { opaqueToken } from "../validation.js";
import { hashToken, randomToken } from "./random.js";

/**
 * Mints an opaque single-use token (256 random bits) and stores only its SHA-256 with an expiry,
 * kept `graceMs` past it so an expired token can be told from an unknown one. Returns the token.
 */
export async function issueSingleUseToken(
  ctx: AuthContext,
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
    ctx.sessions.saveToken(record, options.ttlMs + (options.graceMs ?? 0), {
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
  ctx: AuthContext,
  purpose: string,
  token: string | undefined,
): Promise<{ record: TokenRecord; expired: boolean } | null> {
  if (!opaqueToken.safeParse(token).success) return null;
  const record = await guardPort("DATABASE_FAILURE", () =>
    ctx.sessions.consumeToken(purpose, hashToken(token as string)),
  );
  return record ? { record, expired: record.expiresAt <= ctx.clock.now() } : null;
}
