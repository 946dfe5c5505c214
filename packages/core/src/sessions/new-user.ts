import { guardPort } from "../errors.js";
import type { Clock } from "../ports/clock.js";
import { NO_TWO_FACTOR, type UserRecord, type UserStore } from "../ports/user-store.js";

/** What a new account is made of; the rest (id, no 2FA, the creation time) is filled in. */
export interface NewUser {
  email: string;
  name: string | null;
  passwordHash: string | null;
  emailVerified: boolean;
  identityProviders?: string[] | undefined;
}

/**
 * A name an identity provider or a directory gave, as an account keeps it: control and format
 * characters dropped, at most 100 characters; null when none is left.
 */
export const providedName = (name: string | null | undefined): string | null =>
  name?.replace(/[\p{Cc}\p{Cf}]/gu, "").slice(0, 100) || null;

/**
 * Stores a new account (registration, an admin's, an identity provider's first sign-in): a fresh
 * id, no second factor, created now. Null when the address is taken (`UserStore.create`).
 */
export async function createUserRecord(
  deps: { users: UserStore; clock: Clock; generateId: () => string },
  user: NewUser,
): Promise<UserRecord | null> {
  const record: UserRecord = {
    id: deps.generateId(),
    email: user.email,
    emailVerified: user.emailVerified,
    name: user.name,
    passwordHash: user.passwordHash,
    identityProviders: user.identityProviders ?? [],
    twoFactor: { ...NO_TWO_FACTOR, methods: [], recoveryCodeHashes: [] },
    createdAt: deps.clock.now(),
  };
  return guardPort("DATABASE_FAILURE", () => deps.users.create(record));
}
