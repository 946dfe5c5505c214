import type { ActivityItem } from "../activity/list.js";
import type { SessionInfo, UserAccount } from "../model.js";
import type { TwoFactorMethod } from "../ports/user-store.js";

/**
 * What `GET /me/export` answers: what is stored about the user, without a password hash, TOTP
 * secret, recovery code, token or token hash (docs/concepts.md, "Account self-service").
 */
export interface AccountExport {
  /** ISO 8601: when this document was made. */
  exportedAt: string;
  user: UserAccount & {
    /** ISO 8601. */
    createdAt: string;
    /** ISO 8601; null when the account never signed in (or the store does not keep it). */
    lastSignInAt: string | null;
  };
  /** The methods turned on, the preferred one, and how many recovery codes are left: never a secret. */
  twoFactor: {
    methods: TwoFactorMethod[];
    preferredMethod: TwoFactorMethod | null;
    recoveryCodesLeft: number;
  };
  /** The live sessions with their devices, most recently active first; `current` marks the caller's. */
  sessions: SessionInfo[];
  /** Links to identity providers: who each provider says the user is. */
  identities: {
    provider: string;
    issuer: string;
    subject: string;
    email: string | null;
    /** ISO 8601. */
    createdAt: string;
  }[];
  /** The account's passkeys: names, times and backup state, never the public key or counter. */
  passkeys: {
    id: string;
    name: string;
    backedUp: boolean;
    /** ISO 8601. */
    createdAt: string;
    /** ISO 8601; null before its first use. */
    lastUsedAt: string | null;
  }[];
  /** The account's security events within the retention, newest first. */
  activity: ActivityItem[];
  /**
   * Only while `organizations` is configured: the organizations the user belongs to, oldest
   * membership first, with the role.
   */
  memberships?: {
    organization: { id: string; name: string; slug: string };
    role: string;
    /** ISO 8601. */
    joinedAt: string;
  }[];
}
