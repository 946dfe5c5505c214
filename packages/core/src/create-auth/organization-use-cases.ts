import { acceptInvitation } from "../use-cases/accept-invitation.js";
import { activateOrganization } from "../use-cases/activate-organization.js";
import { authorizeSsoManager } from "../use-cases/authorize-sso-manager.js";
import { changeMemberRole } from "../use-cases/change-member-role.js";
import { countSsoSignInStart } from "../use-cases/count-sso-sign-in-start.js";
import { createOrganization } from "../use-cases/create-organization.js";
import { createRole } from "../use-cases/create-role.js";
import { declineInvitation } from "../use-cases/decline-invitation.js";
import { deleteOrganization } from "../use-cases/delete-organization.js";
import { deleteRole } from "../use-cases/delete-role.js";
import { exportOrganizationAuditLog } from "../use-cases/export-organization-audit-log.js";
import { finishSsoSignIn } from "../use-cases/finish-sso-sign-in.js";
import { getOrganization } from "../use-cases/get-organization.js";
import { inviteMember } from "../use-cases/invite-member.js";
import { listInvitations } from "../use-cases/list-invitations.js";
import { listMembers } from "../use-cases/list-members.js";
import { listMyInvitations } from "../use-cases/list-my-invitations.js";
import { listOrganizationAuditLog } from "../use-cases/list-organization-audit-log.js";
import { listOrganizations } from "../use-cases/list-organizations.js";
import { listRoles } from "../use-cases/list-roles.js";
import { provisionSsoAccount } from "../use-cases/provision-sso-account.js";
import { removeMember } from "../use-cases/remove-member.js";
import { revokeInvitation } from "../use-cases/revoke-invitation.js";
import { setSsoMemberRole } from "../use-cases/set-sso-member-role.js";
import { stepUpWithSso } from "../use-cases/step-up-with-sso.js";
import { suspendSsoMember } from "../use-cases/suspend-sso-member.js";
import { updateOrganization } from "../use-cases/update-organization.js";
import { updateRole } from "../use-cases/update-role.js";

/** `auth.organizations`, besides `can` and `require` (docs/organizations.md). */
export const ORGANIZATION_USE_CASES = {
  create: createOrganization,
  list: listOrganizations,
  get: getOrganization,
  update: updateOrganization,
  delete: deleteOrganization,
  activate: activateOrganization,
  listMembers,
  changeMemberRole,
  removeMember,
  invite: inviteMember,
  listInvitations,
  revokeInvitation,
  receivedInvitations: listMyInvitations,
  acceptInvitation,
  declineInvitation,
  listRoles,
  createRole,
  updateRole,
  deleteRole,
  listAuditLog: listOrganizationAuditLog,
  exportAuditLog: exportOrganizationAuditLog,
} as const;

/** `auth.sso`: enterprise sign-in's steps that touch accounts and memberships (docs/sso.md). */
export const SSO_USE_CASES = {
  authorize: authorizeSsoManager,
  signIn: finishSsoSignIn,
  stepUp: stepUpWithSso,
  countStart: countSsoSignInStart,
  provisionAccount: provisionSsoAccount,
  setMemberRole: setSsoMemberRole,
  suspendMember: suspendSsoMember,
} as const;
