/**
 * A client of the OAuth / OpenID provider (docs/oauth-provider.md): an app, CLI, agent or
 * service that asks for tokens. The store keeps it as given.
 */
export interface OAuthClientRecord {
  /** The `client_id`: unique, chosen by the host (a seeded client) or random (a registered one). */
  clientId: string;
  /** Shown on the consent page and in the user's authorized apps (at most 100 characters). */
  name: string;
  /**
   * The client secret's keyed hash, made by the provider (HMAC-SHA-256 under a key derived from
   * the host's `secret`); null for a public client (a browser app, a CLI), which proves itself by
   * PKCE alone.
   */
  secretHash: string | null;
  /** The redirect URIs, matched exactly (no prefix, no wildcard); at least one for the code grant. */
  redirectUris: string[];
  /** The grants it may use: `authorization_code`, `refresh_token`, `client_credentials`, `urn:ietf:params:oauth:grant-type:device_code`. */
  grantTypes: string[];
  /** The scopes it may ask for. */
  scopes: string[];
  /** True when it registered itself (RFC 7591 dynamic registration). */
  dynamic: boolean;
  /** ms since the epoch. */
  createdAt: number;
}

/** What `updateOAuthClient` may change; absent fields stay. */
export type OAuthClientPatch = Partial<
  Pick<OAuthClientRecord, "name" | "secretHash" | "redirectUris" | "grantTypes" | "scopes">
>;

/**
 * A grant: what one authorization (a code exchange, a device approval, a client-credentials
 * request) gave a client, and the refresh token that renews it. A revoked grant stays stored
 * (with `revokedAt`) until `expiresAt`, so that its id cannot be granted again: that is how a
 * replayed authorization code revokes what the first redemption issued, whichever of them the
 * store saw first.
 */
export interface OAuthGrantRecord {
  /** Random and unique; the provider derives it from the authorization code it came from. */
  grantId: string;
  clientId: string;
  /** The user it acts for; null for a client-credentials grant (the client acts for itself). */
  userId: string | null;
  scopes: string[];
  /** The RFC 8707 resources its access tokens are for (their `aud`); empty: the client itself. */
  resources: string[];
  /** When the user last signed in before granting (ms), for `auth_time`; null without a user. */
  authTime: number | null;
  /** SHA-256 (base64url) of the live refresh token; null when it has none. */
  refreshHash: string | null;
  /** ms since the epoch. */
  createdAt: number;
  /** When it ends, rotation or not (ms); the store may forget it afterwards. */
  expiresAt: number;
  /** When it was revoked (ms); null while live. */
  revokedAt: number | null;
}

/** What `rotateOAuthRefresh` did. */
export type OAuthRefreshRotation =
  /** The presented hash was the live one: it is replaced by the next; the grant as it is now. */
  | { outcome: "rotated"; grant: OAuthGrantRecord }
  /**
   * The grant is live but the presented hash is not its live one (an older token of it, replayed):
   * the grant is revoked in the same step.
   */
  | { outcome: "reused" }
  /** No such grant, or it is revoked or expired: nothing changed. */
  | { outcome: "absent" };

/** A user's consent to a client for a set of scopes: asked once, until the user withdraws it. */
export interface OAuthConsentRecord {
  userId: string;
  clientId: string;
  scopes: string[];
  /** ms since the epoch: first given. */
  createdAt: number;
  /** ms since the epoch: last widened. */
  updatedAt: number;
}

/** A device authorization (RFC 8628) while it waits for the user and for the device's polls. */
export interface OAuthDeviceRecord {
  /** SHA-256 (base64url) of the device code the device polls with. */
  deviceCodeHash: string;
  /** SHA-256 (base64url) of the user code, normalized by the provider (upper case, no dash). */
  userCodeHash: string;
  clientId: string;
  scopes: string[];
  resources: string[];
  status: "pending" | "approved" | "denied";
  /** Who approved or denied it; null while pending. */
  userId: string | null;
  /** The approving user's last sign-in (ms); null while pending. */
  authTime: number | null;
  /** The seconds a device must wait between polls; raised by 5 at each `slow_down`. */
  intervalSeconds: number;
  /** ms since the epoch of the last poll; null before the first. */
  lastPolledAt: number | null;
  /** ms since the epoch; after it the record reads as expired, then absent. */
  expiresAt: number;
}

/** What `pollOAuthDevice` found (RFC 8628 §3.5). */
export type OAuthDevicePoll =
  /** Approved: the record is deleted in the same step, so exactly one poll gets it. */
  | { outcome: "approved"; device: OAuthDeviceRecord }
  /** Denied: the record is deleted. */
  | { outcome: "denied" }
  /** Still pending; this poll is recorded. */
  | { outcome: "pending" }
  /** Polled sooner than the interval after the last poll: the interval grows by 5 s, this poll is recorded. */
  | { outcome: "slow_down" }
  /** Past `expiresAt`: the record is deleted. */
  | { outcome: "expired" }
  | { outcome: "absent" };

/**
 * The OAuth / OpenID provider's state: its clients, grants, consents and device authorizations.
 * Optional in a store package's stores; required while the provider is on. (Authorization codes
 * and consent requests are single-use tokens of the `SingleUseTokenStore`.) Records are returned
 * as copies; arrays keep their order. Every method rejects only when the store itself fails.
 * Times are compared with the `now` the caller passes, never the store's own clock.
 */
export interface OAuthStore {
  /** Stores a new client: false (storing nothing) when its `clientId` is taken. */
  createOAuthClient(client: OAuthClientRecord): Promise<boolean>;
  getOAuthClient(clientId: string): Promise<OAuthClientRecord | null>;
  /** Up to `limit` (1 to 1000) clients ordered by `clientId`, those after `after` when given. */
  listOAuthClients(query: { after?: string; limit: number }): Promise<OAuthClientRecord[]>;
  /** Changes the fields given: false when there is no such client. */
  updateOAuthClient(clientId: string, patch: OAuthClientPatch): Promise<boolean>;
  /** Deletes the client with its grants, consents and device authorizations: false when absent. */
  deleteOAuthClient(clientId: string): Promise<boolean>;

  /**
   * Stores a new grant: false (storing nothing) when a grant with its id exists, live or revoked,
   * or its client does not.
   */
  createOAuthGrant(grant: OAuthGrantRecord): Promise<boolean>;
  /** The grant, revoked or not; null when absent or past `expiresAt` at `now`. */
  getOAuthGrant(grantId: string, now: number): Promise<OAuthGrantRecord | null>;
  /**
   * One atomic step: when the grant is live at `now` and `presentedHash` is its `refreshHash`,
   * sets `refreshHash` to `nextHash` ("rotated"); when it is live and the hash differs, revokes it
   * ("reused"). Of N concurrent calls with the live hash, exactly one rotates.
   */
  rotateOAuthRefresh(
    grantId: string,
    presentedHash: string,
    nextHash: string,
    now: number,
  ): Promise<OAuthRefreshRotation>;
  /**
   * Revokes the grant (it keeps its record until `expiresAt`); when none exists, stores a revoked
   * one with this id, `clientId` and `expiresAt`, so that a later `createOAuthGrant` of the id is
   * refused. True when a live grant was revoked.
   */
  revokeOAuthGrant(
    grantId: string,
    tombstone: { clientId: string; expiresAt: number },
    now: number,
  ): Promise<boolean>;
  /** Revokes every live grant of the user (of one client when given): how many. */
  revokeUserOAuthGrants(userId: string, now: number, clientId?: string): Promise<number>;

  /** Stores the consent, replacing the user's consent to that client (keeping `createdAt`). */
  saveOAuthConsent(consent: OAuthConsentRecord): Promise<void>;
  getOAuthConsent(userId: string, clientId: string): Promise<OAuthConsentRecord | null>;
  /** The user's consents, the latest `updatedAt` first (at most 1000). */
  listOAuthConsents(userId: string): Promise<OAuthConsentRecord[]>;
  /** Deletes the consent: false when absent. */
  deleteOAuthConsent(userId: string, clientId: string): Promise<boolean>;

  /** Stores a new device authorization: false when its device or user code hash is taken by a live one. */
  createOAuthDevice(device: OAuthDeviceRecord): Promise<boolean>;
  /** The pending, unexpired authorization with this user code hash; null otherwise. */
  findOAuthDevice(userCodeHash: string, now: number): Promise<OAuthDeviceRecord | null>;
  /**
   * Approves or denies the pending, unexpired authorization with this user code hash, in one
   * atomic step: true when it was pending (of concurrent calls exactly one is true).
   */
  decideOAuthDevice(
    userCodeHash: string,
    decision: { userId: string; approve: boolean; authTime: number },
    now: number,
  ): Promise<boolean>;
  /**
   * One poll of the device, one atomic step (see `OAuthDevicePoll`): an approval or a denial is
   * answered whenever it comes; a pending one is `slow_down` when it comes sooner than
   * `intervalSeconds` after `lastPolledAt`. Every poll of a pending one sets `lastPolledAt`.
   */
  pollOAuthDevice(deviceCodeHash: string, now: number): Promise<OAuthDevicePoll>;
}

/**
 * The revoked record `revokeOAuthGrant` stores for an id it does not find (a tombstone): no user,
 * scopes or refresh token, revoked at `now`, kept until `expiresAt`. What `getOAuthGrant` then
 * reads back; a store may build it with this.
 */
export function oauthTombstone(
  grantId: string,
  tombstone: { clientId: string; expiresAt: number },
  now: number,
): OAuthGrantRecord {
  return {
    grantId,
    clientId: tombstone.clientId,
    userId: null,
    scopes: [],
    resources: [],
    authTime: null,
    refreshHash: null,
    createdAt: now,
    expiresAt: tombstone.expiresAt,
    revokedAt: now,
  };
}
