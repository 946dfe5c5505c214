import { z } from "zod";

/**
 * The management permissions every organization has built in: what its owners and admins may do
 * to the organization itself. Host-declared permissions may not reuse these names.
 */
export const MANAGEMENT_PERMISSIONS = [
  "organization:update",
  "member:invite",
  "member:remove",
  "member:update-role",
  "role:manage",
  "api-key:manage",
  "audit:read",
  "webhook:manage",
  "sso:manage",
] as const;

/** One of the built-in management permissions. */
export type ManagementPermission = (typeof MANAGEMENT_PERMISSIONS)[number];

const MANAGEMENT: ReadonlySet<string> = new Set(MANAGEMENT_PERMISSIONS);

/** A permission name as hosts declare them. */
const permissionName = z
  .string()
  .regex(/^[a-z0-9:_-]{1,64}$/, "must be 1 to 64 of a-z, 0-9, ':', '_' and '-'")
  .refine((name) => !MANAGEMENT.has(name), {
    message: `must not be one of the built-in management permissions (${MANAGEMENT_PERMISSIONS.join(", ")})`,
  });

/** The validation of the `organizations` option, with its defaults. */
export const organizationsOptionsSchema = z
  .object({
    permissions: z.array(permissionName).max(100),
    memberPermissions: z.array(permissionName).max(100).default([]),
    maxPerUser: z.number().int().min(1).max(10_000).default(100),
  })
  .refine((o) => new Set(o.permissions).size === o.permissions.length, {
    message: "must not repeat a permission",
    path: ["permissions"],
  })
  .refine((o) => o.memberPermissions.every((name) => o.permissions.includes(name)), {
    message: "must each be one of organizations.permissions",
    path: ["memberPermissions"],
  })
  .optional();

/** The `organizations` option after validation (undefined: organizations are off). */
export type ResolvedOrganizationsOptions = z.output<typeof organizationsOptionsSchema>;
