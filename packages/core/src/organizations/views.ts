import { randomBytes } from "node:crypto";
import type { InvitationRecord, OrganizationRecord, RoleRecord } from "../ports/organization-store.js";
import { BUILT_IN_ROLES, type PermissionOptions, permissionsOfRole } from "./roles.js";

/** An organization as its members see it. */
export interface OrganizationView {
  id: string;
  name: string;
  slug: string;
  /** ISO 8601. */
  createdAt: string;
}

/** One of the caller's organizations, with their role and what it grants. */
export interface OrganizationMembershipView {
  organization: OrganizationView;
  role: string;
  permissions: string[];
}

/** An invitation as the organization's members see it (never its token or token hash). */
export interface InvitationView {
  id: string;
  email: string;
  role: string;
  /** ISO 8601. */
  expiresAt: string;
}

/** A role as `GET /organizations/:id/roles` lists it. */
export interface RoleView {
  name: string;
  permissions: string[];
  builtIn: boolean;
}

const iso = (ms: number) => new Date(ms).toISOString();

export function toOrganizationView(record: OrganizationRecord): OrganizationView {
  return { id: record.id, name: record.name, slug: record.slug, createdAt: iso(record.createdAt) };
}

export function toInvitationView(record: InvitationRecord): InvitationView {
  return { id: record.id, email: record.email, role: record.role, expiresAt: iso(record.expiresAt) };
}

/** The built-in roles with what they grant, then the organization's custom ones. */
export function roleViews(options: PermissionOptions, custom: RoleRecord[]): RoleView[] {
  return [
    ...BUILT_IN_ROLES.map((name) => ({
      name,
      permissions: permissionsOfRole(options, name, null),
      builtIn: true,
    })),
    ...custom.map((role) => ({ name: role.name, permissions: [...role.permissions], builtIn: false })),
  ];
}

/** A custom role's view. */
export function toRoleView(role: RoleRecord): RoleView {
  return { name: role.name, permissions: [...role.permissions], builtIn: false };
}

/**
 * A slug made from an organization's name: lower case, letters without their accents, every other
 * run of characters one `-`, at most 40 characters; `org` when nothing is left. With `suffix`, a
 * short random tail (`-` and 6 of `[a-z0-9]`) that sets it apart from a taken one.
 */
export function slugFromName(name: string, suffix = false): string {
  const base =
    name
      .normalize("NFKD")
      .replace(/[\u0300-\u036f]/g, "")
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 40)
      .replace(/-+$/, "") || "org";
  const slug = base.length < 2 ? `${base}-org` : base;
  if (!suffix) return slug;
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  const tail = [...randomBytes(6)].map((byte) => alphabet[byte % alphabet.length]).join("");
  return `${slug}-${tail}`;
}
