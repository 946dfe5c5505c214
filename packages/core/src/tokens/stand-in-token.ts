import { guardPort } from "../errors.js";
import type { TokenRecord } from "../ports/single-use-token-store.js";
import type { KeyedHash } from "./keys.js";
import { hashToken, randomToken } from "./random.js";
import type { TokenDeps } from "./single-use-token.js";

/**
 * How long a stand-in token is kept: a minute (the email cooldown's default). It is never sent
 * and can never be used, so it is kept only for the store to do the same work as for a real one;
 * with one per address at a time (`replaceOthers`), they never add up.
 */
export const STAND_IN_TOKEN_KEPT_MS = 60 * 1000;

/**
 * The user id the stand-in tokens of an address without an account are stored under: derived from
 * the address under a key (never the address itself), and no account's id (`stand-in:` prefix).
 */
export function standInUserId(decoys: KeyedHash, address: string): string {
  return `stand-in:${decoys.hash(`stand-in user:${address}`)}`;
}

/**
 * For an address without an account, the store work that issuing a token of `purpose` does for a
 * known one (docs/security.md, A2): one `saveToken` of a random token of the same shape, under
 * `standInUserId`, replacing that id's earlier ones when `replaceOthers`. Nobody ever holds the
 * token, so it can never be used; it goes after `STAND_IN_TOKEN_KEPT_MS`.
 */
export async function saveStandInToken(
  deps: TokenDeps,
  userId: string,
  token: { purpose: string; data: NonNullable<TokenRecord["data"]>; replaceOthers?: boolean },
): Promise<void> {
  const record: TokenRecord = {
    purpose: token.purpose,
    tokenHash: hashToken(randomToken(32)),
    userId,
    expiresAt: deps.clock.now() + STAND_IN_TOKEN_KEPT_MS,
    data: token.data,
  };
  await guardPort("DATABASE_FAILURE", () =>
    deps.singleUseTokens.saveToken(record, STAND_IN_TOKEN_KEPT_MS, {
      replaceOthers: token.replaceOthers ?? false,
    }),
  );
}
