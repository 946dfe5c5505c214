/**
 * A user an organization's identity provider provisioned through one SSO connection's SCIM
 * endpoint (docs/sso.md, "SCIM"), linked to the Portcullis account it stands for. The store keeps
 * it as given; `attributes` is the rest of the SCIM resource (name, display name, addresses) as
 * `@portcullis/sso` writes it, JSON the store neither reads nor changes.
 */
export interface ScimUserRecord {
  connectionId: string;
  /** The SCIM `id`: random, unique across connections. */
  id: string;
  /** The account it provisions: at most one SCIM user per account and connection. */
  userId: string;
  /** As the identity provider sent it; unique per connection, compared without case. */
  userName: string;
  /** The identity provider's own id, compared with case; null when it sent none. */
  externalId: string | null;
  /** False while the identity provider has it deactivated. */
  active: boolean;
  /**
   * The role the account's membership had when it was deactivated (given back on reactivation);
   * null while active, or when it was no member then.
   */
  suspendedRole: string | null;
  /** The SCIM attributes the store does not index (JSON: objects, arrays, strings, numbers, booleans, null). */
  attributes: Record<string, unknown>;
  /** 1 when created, one more on each update: the `version` the next update names. */
  version: number;
  /** ms since the epoch. */
  createdAt: number;
  /** ms since the epoch. */
  updatedAt: number;
}

/**
 * A group provisioned through one connection's SCIM endpoint: its members get the organization
 * role `role` (null: the name is no role, so membership in it changes nothing).
 */
export interface ScimGroupRecord {
  connectionId: string;
  /** The SCIM `id`: random, unique across connections. */
  id: string;
  /** Unique per connection, compared without case. */
  displayName: string;
  externalId: string | null;
  role: string | null;
  /** The `id`s of its SCIM users (of the same connection), ascending, without repeats. */
  memberIds: string[];
  /** 1 when created, one more on each update. */
  version: number;
  /** ms since the epoch. */
  createdAt: number;
  /** ms since the epoch. */
  updatedAt: number;
}

/** What `updateScimUser` may change; absent fields stay. */
export type ScimUserPatch = Partial<
  Pick<ScimUserRecord, "userName" | "externalId" | "active" | "suspendedRole" | "attributes">
>;

/** What `updateScimGroup` may change; absent fields stay. */
export type ScimGroupPatch = Partial<
  Pick<ScimGroupRecord, "displayName" | "externalId" | "role" | "memberIds">
>;

/** A page of a connection's users or groups: ascending by `id`, after `after` (exclusive) when given. */
export interface ScimPageQuery {
  after?: string;
  /** 1 to 1,000. */
  limit: number;
}

/**
 * The SCIM directory of each SSO connection (`createSso({ scim })` of `@portcullis/sso`): its
 * users and groups. Every key is per connection: one connection's token never reaches another's
 * resources. Every method rejects only when the store itself fails. Updates are compare-and-set on
 * `version`, so two identity provider requests changing one resource at once never lose a change:
 * the one that finds the version moved reads again and retries.
 */
export interface ScimStore {
  /**
   * Stores a new user (version 1): "created"; "user-name-taken" when the connection has a user of
   * that `userName` in any case; "user-taken" when the connection already has a user for
   * `userId`. Nothing is stored unless "created". Atomic: of concurrent creations naming one
   * `userName` or one `userId`, exactly one is "created".
   */
  createScimUser(user: ScimUserRecord): Promise<"created" | "user-name-taken" | "user-taken">;
  /** The connection's user with this id, or null (another connection's id is null). */
  findScimUser(connectionId: string, id: string): Promise<ScimUserRecord | null>;
  /** The connection's user of this `userName`, compared without case, or null. */
  findScimUserByUserName(connectionId: string, userName: string): Promise<ScimUserRecord | null>;
  /** The connection's user of this `externalId` (with case), or null; several: the lowest id. */
  findScimUserByExternalId(connectionId: string, externalId: string): Promise<ScimUserRecord | null>;
  /** The connection's user for the account `userId`, or null. */
  findScimUserByUserId(connectionId: string, userId: string): Promise<ScimUserRecord | null>;
  /** A page of the connection's users, ascending by id. */
  listScimUsers(connectionId: string, page: ScimPageQuery): Promise<ScimUserRecord[]>;
  /** How many users the connection has. */
  countScimUsers(connectionId: string): Promise<number>;
  /**
   * Changes the user if its version is still `version`: the user as it is now (version + 1,
   * `updatedAt` as given); null when the connection has no such user; "conflict" (nothing
   * changed) when its version moved on; "user-name-taken" (nothing changed) when another user of
   * the connection has the new `userName` in any case.
   */
  updateScimUser(
    connectionId: string,
    id: string,
    version: number,
    patch: ScimUserPatch & { updatedAt: number },
  ): Promise<ScimUserRecord | null | "conflict" | "user-name-taken">;
  /**
   * Deletes the connection's user and takes it out of every group of the connection (those
   * groups' versions move on); false when there is none.
   */
  deleteScimUser(connectionId: string, id: string): Promise<boolean>;

  /**
   * Stores a new group (version 1): "created"; "display-name-taken" (nothing stored) when the
   * connection has a group of that name in any case. Member ids are kept as given (the caller
   * checks they are the connection's users), sorted and without repeats. Atomic as for users.
   */
  createScimGroup(group: ScimGroupRecord): Promise<"created" | "display-name-taken">;
  /** The connection's group with this id, or null. */
  findScimGroup(connectionId: string, id: string): Promise<ScimGroupRecord | null>;
  /** The connection's group of this name, compared without case, or null. */
  findScimGroupByDisplayName(connectionId: string, displayName: string): Promise<ScimGroupRecord | null>;
  /** The connection's group of this `externalId` (with case), or null; several: the lowest id. */
  findScimGroupByExternalId(connectionId: string, externalId: string): Promise<ScimGroupRecord | null>;
  /** A page of the connection's groups, ascending by id. */
  listScimGroups(connectionId: string, page: ScimPageQuery): Promise<ScimGroupRecord[]>;
  /** How many groups the connection has. */
  countScimGroups(connectionId: string): Promise<number>;
  /**
   * The connection's groups that have any of `userScimIds` as a member, each once, ascending by id
   * (`[]` for no ids): one read for a user, or for a page of users (SCIM's lists show each user's
   * groups).
   */
  listScimGroupsOfUsers(connectionId: string, userScimIds: readonly string[]): Promise<ScimGroupRecord[]>;
  /**
   * Changes the group if its version is still `version`, as `updateScimUser` does; a new
   * `memberIds` replaces the old list (kept sorted, without repeats); "display-name-taken" when
   * another group of the connection has the new name in any case.
   */
  updateScimGroup(
    connectionId: string,
    id: string,
    version: number,
    patch: ScimGroupPatch & { updatedAt: number },
  ): Promise<ScimGroupRecord | null | "conflict" | "display-name-taken">;
  /** Deletes the connection's group; false when there is none. */
  deleteScimGroup(connectionId: string, id: string): Promise<boolean>;

  /** Removes every user and group of the connection (it was deleted). */
  removeConnectionScim(connectionId: string): Promise<void>;
}
