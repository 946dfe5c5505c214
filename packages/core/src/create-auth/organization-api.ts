// The `auth.organizations` group of the `Auth` object (docs/organizations.md). Re-exported from auth.ts.
import type { AuditExport } from "../audit/export.js";
import type { OrganizationAuditPage } from "../audit/read.js";
import type { Call, Principal } from "../model.js";
import type { PermissionGrant } from "../organizations/membership.js";
import type {
  InvitationView,
  OrganizationMembershipView,
  OrganizationView,
  RoleView,
} from "../organizations/views.js";
import type { Activation } from "../use-cases/activate-organization.js";
import type { MemberView } from "../use-cases/list-members.js";
import type { ReceivedInvitation } from "../use-cases/list-my-invitations.js";
import type { AuditExportInput, AuditListInput } from "./auth-apis.js";

/**
 * Organizations, their members, roles and invitations (docs/organizations.md), and the permission
 * checks of the host's own routes. Every method but `can` and `require` takes the signed-in
 * caller's `call.principal` (`AUTHENTICATION_REQUIRED` without) and rejects with `NOT_FOUND` when
 * `organizations` is not configured. For anything of one organization, a caller who is no member
 * gets `ORGANIZATION_NOT_FOUND` (as for one that does not exist), a member without the permission
 * `PERMISSION_DENIED`. The events name the caller's user id as `actor`. Each reads `call.request`.
 */
export interface OrganizationApi {
  /**
   * Whether `principal` may do `permission` in its active organization, read now from the store:
   * false without a principal, an active organization, a membership or the permission (also for a
   * permission neither declared nor built in, and whenever organizations are off).
   * @throws `DATABASE_FAILURE`: a store failure rejects, never resolves true
   */
  can(principal: Principal | null | undefined, permission: string): Promise<boolean>;
  /**
   * `can`, answering the active organization and the member's role, or why not.
   * @throws `AUTHENTICATION_REQUIRED`, `NO_ACTIVE_ORGANIZATION`, `PERMISSION_DENIED` (also a removed member, an unknown permission, organizations off), `DATABASE_FAILURE`
   */
  require(principal: Principal | null | undefined, permission: string): Promise<PermissionGrant>;
  /**
   * A new organization `{ name, slug? }` with the caller as its owner.
   * @throws `USE_CASE_ERRORS.organizations.create`'s codes (use-case-errors.ts)
   */
  create(
    call: Call,
    input: { name: string; slug?: string | undefined },
  ): Promise<{ organization: OrganizationView; role: "owner" }>;
  /** The caller's organizations with their role in each. @throws `USE_CASE_ERRORS.organizations.list`'s codes (use-case-errors.ts) */
  list(call: Call): Promise<{ items: { organization: OrganizationView; role: string }[] }>;
  /** One of the caller's organizations, their role and permissions. @throws `USE_CASE_ERRORS.organizations.get`'s codes (use-case-errors.ts) */
  get(call: Call, organizationId: string): Promise<OrganizationMembershipView>;
  /**
   * Changes the name or slug (`organization:update`).
   * @throws `USE_CASE_ERRORS.organizations.update`'s codes (use-case-errors.ts)
   */
  update(call: Call, input: { organizationId: string; body: unknown }): Promise<OrganizationMembershipView>;
  /**
   * Deletes the organization: owners only, with `call.stepUpToken`.
   * @throws `USE_CASE_ERRORS.organizations.delete`'s codes (use-case-errors.ts)
   */
  delete(call: Call, organizationId: string): Promise<{ success: true }>;
  /**
   * Makes it the caller's session's active organization: a new access token naming it.
   * @throws `USE_CASE_ERRORS.organizations.activate`'s codes (use-case-errors.ts)
   */
  activate(call: Call, organizationId: string): Promise<Activation>;
  /**
   * The members, oldest first, a page at a time.
   * @throws `USE_CASE_ERRORS.organizations.listMembers`'s codes (use-case-errors.ts)
   */
  listMembers(
    call: Call,
    input: { organizationId: string; cursor?: string | undefined; limit?: number | string | undefined },
  ): Promise<{ items: MemberView[]; nextCursor: string | null }>;
  /**
   * Gives a member another role `{ role }` (`member:update-role`, and the escalation rules).
   * @throws `USE_CASE_ERRORS.organizations.changeMemberRole`'s codes (use-case-errors.ts)
   */
  changeMemberRole(
    call: Call,
    input: { organizationId: string; userId: string; body: unknown },
  ): Promise<{ userId: string; role: string }>;
  /**
   * Removes a member (`member:remove`), or the caller leaves (their own user id).
   * @throws `USE_CASE_ERRORS.organizations.removeMember`'s codes (use-case-errors.ts)
   */
  removeMember(call: Call, input: { organizationId: string; userId: string }): Promise<{ success: true }>;
  /**
   * Invites `{ email, role }` by email (`member:invite`).
   * @throws `USE_CASE_ERRORS.organizations.invite`'s codes (use-case-errors.ts)
   */
  invite(
    call: Call,
    input: { organizationId: string; body: unknown },
  ): Promise<{ invitation: InvitationView }>;
  /** The organization's pending invitations (`member:invite`). @throws `USE_CASE_ERRORS.organizations.listInvitations`'s codes (use-case-errors.ts) */
  listInvitations(call: Call, organizationId: string): Promise<{ items: InvitationView[] }>;
  /** Revokes an invitation (`member:invite`). @throws `USE_CASE_ERRORS.organizations.revokeInvitation`'s codes (use-case-errors.ts) */
  revokeInvitation(
    call: Call,
    input: { organizationId: string; invitationId: string },
  ): Promise<{ success: true }>;
  /** The caller's pending invitations. @throws `USE_CASE_ERRORS.organizations.receivedInvitations`'s codes (use-case-errors.ts) */
  receivedInvitations(call: Call): Promise<{ items: ReceivedInvitation[] }>;
  /**
   * Accepts an invitation `{ token }` to the caller's verified address.
   * @throws `USE_CASE_ERRORS.organizations.acceptInvitation`'s codes (use-case-errors.ts)
   */
  acceptInvitation(
    call: Call,
    input: { token: string },
  ): Promise<{ organization: OrganizationView; role: string }>;
  /**
   * Declines an invitation `{ token }` to the caller's address.
   * @throws `USE_CASE_ERRORS.organizations.declineInvitation`'s codes (use-case-errors.ts)
   */
  declineInvitation(call: Call, input: { token: string }): Promise<{ success: true }>;
  /** The built-in and custom roles (`role:manage`). @throws `USE_CASE_ERRORS.organizations.listRoles`'s codes (use-case-errors.ts) */
  listRoles(call: Call, organizationId: string): Promise<{ items: RoleView[] }>;
  /**
   * Defines a custom role `{ name, permissions }` (`role:manage`).
   * @throws `USE_CASE_ERRORS.organizations.createRole`'s codes (use-case-errors.ts)
   */
  createRole(call: Call, input: { organizationId: string; body: unknown }): Promise<RoleView>;
  /**
   * Replaces a custom role's permissions `{ permissions }` (`role:manage`).
   * @throws `USE_CASE_ERRORS.organizations.updateRole`'s codes (use-case-errors.ts)
   */
  updateRole(call: Call, input: { organizationId: string; role: string; body: unknown }): Promise<RoleView>;
  /**
   * Removes a custom role (`role:manage`).
   * @throws `USE_CASE_ERRORS.organizations.deleteRole`'s codes (use-case-errors.ts)
   */
  deleteRole(call: Call, input: { organizationId: string; role: string }): Promise<{ success: true }>;
  /**
   * A page of the organization's audit log, newest first (`audit:read`), filtered by `type`,
   * `actor`, `from`, `to` (docs/audit-log.md); `NOT_FOUND` without `stores.auditLog`. Its items
   * carry nothing of the rest of the deployment (no `seq`, no `prevHash`); `nextCursor` is opaque.
   * @throws `USE_CASE_ERRORS.organizations.listAuditLog`'s codes (use-case-errors.ts)
   */
  listAuditLog(
    call: Call,
    input: { organizationId: string } & Omit<AuditListInput, "organizationId">,
  ): Promise<OrganizationAuditPage>;
  /**
   * The organization's audit log as NDJSON or CSV (`audit:read`), oldest first, streamed a page
   * at a time; its entries as `listAuditLog`'s items (no `seq`, no `prevHash`).
   * @throws `USE_CASE_ERRORS.organizations.exportAuditLog`'s codes (use-case-errors.ts)
   */
  exportAuditLog(
    call: Call,
    input: { organizationId: string } & Omit<AuditExportInput, "organizationId">,
  ): Promise<AuditExport>;
}
