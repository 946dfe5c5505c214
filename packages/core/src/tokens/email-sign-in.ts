import { AuthError } from "../errors.js";
import type { UserRecord } from "../ports/user-store.js";
import { EMAIL_SIGN_IN_PURPOSE, EXPIRED_TOKEN_GRACE_MS } from "./purposes.js";
import { hashToken } from "./random.js";
import {
  type HeldToken,
  holdTokenHash,
  issueSingleUseToken,
  saveEmailedCode,
  type TokenDeps,
} from "./single-use-token.js";

/** What an emailed sign-in's code is stored under: its SHA-256 with the user's id (the code itself never is). */
export const emailSignInCodeHash = (userId: string, code: string) =>
  hashToken(`${EMAIL_SIGN_IN_PURPOSE}:${userId}:${code}`);

/** The options an emailed sign-in needs: on or off, and how long a link and code work. */
export interface EmailSignInDeps extends TokenDeps {
  options: { emailSignIn: { enabled: boolean; ttlSeconds: number } };
}

/** Sign-in by email is off unless `emailSignIn.enabled`: its routes are then `NOT_FOUND`. */
export function requireEmailSignIn(deps: { options: { emailSignIn: { enabled: boolean } } }): void {
  if (!deps.options.emailSignIn.enabled) throw new AuthError("NOT_FOUND");
}

/**
 * Stores a new emailed sign-in for the user: a link token (256 random bits) and a 6-digit code,
 * both hashed, bound to the user and the address, for `emailSignIn.ttlSeconds` (kept past it for
 * the grace period, so a late use is told apart in the logs). The link's save deletes the user's
 * older link and code (a newer request invalidates the older); the code is saved beside it.
 */
export async function issueEmailSignIn(
  deps: EmailSignInDeps,
  user: Pick<UserRecord, "id" | "email">,
): Promise<{ token: string; code: string; ttlMs: number }> {
  const ttlMs = deps.options.emailSignIn.ttlSeconds * 1000;
  const token = await issueSingleUseToken(deps, {
    purpose: EMAIL_SIGN_IN_PURPOSE,
    userId: user.id,
    ttlMs,
    data: { email: user.email, kind: "link" },
    graceMs: EXPIRED_TOKEN_GRACE_MS,
    failureCode: "DATABASE_FAILURE",
    replaceOthers: true,
  });
  const code = await saveEmailedCode(
    deps,
    {
      purpose: EMAIL_SIGN_IN_PURPOSE,
      userId: user.id,
      data: { email: user.email, kind: "code" },
      hash: (code) => emailSignInCodeHash(user.id, code),
      ttlMs,
    },
    ttlMs + EXPIRED_TOKEN_GRACE_MS,
  );
  return { token, code, ttlMs };
}

/**
 * Holds the emailed code of `userId` (null for an address without an account: a lookup under a
 * key that is never stored, so both take the same steps). Null when malformed, unknown, used or
 * held by a concurrent request.
 */
export async function holdEmailSignInCode(
  deps: TokenDeps,
  userId: string | null,
  address: string,
  code: string,
): Promise<HeldToken | null> {
  if (!/^\d{6}$/.test(code)) return null;
  const hash = emailSignInCodeHash(userId ?? `unknown:${address}`, code);
  return holdTokenHash(deps, EMAIL_SIGN_IN_PURPOSE, hash, { graceMs: EXPIRED_TOKEN_GRACE_MS });
}
