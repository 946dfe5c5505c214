import { z } from "zod";
import { emailField, opaqueToken } from "../validation.js";

/** No control or format characters (CR/LF, NUL, bidi overrides) in short text fields. */
const PLAIN_TEXT = /^[^\p{Cc}\p{Cf}]*$/u;

/** An organization's name: 1 to 100 characters of plain text, trimmed. */
export const organizationNameField = z.string().trim().min(1).max(100).regex(PLAIN_TEXT);
/** An organization's slug: `[a-z0-9-]{2,48}`. */
export const slugField = z.string().regex(/^[a-z0-9-]{2,48}$/);
/** A role's name, built in or custom: `[a-z0-9-]{2,32}`. */
export const roleNameField = z.string().regex(/^[a-z0-9-]{2,32}$/);
/** A permission's name as a role lists it. */
export const permissionField = z.string().regex(/^[a-z0-9:_-]{1,64}$/);

/** `POST /organizations`: `{ name, slug? }` (the slug is made from the name when absent). */
export const createOrganizationInput = z.object({ name: organizationNameField, slug: slugField.optional() });

/** `PATCH /organizations/:id`: `{ name?, slug? }`, at least one. */
export const updateOrganizationInput = z
  .object({ name: organizationNameField.optional(), slug: slugField.optional() })
  .refine((patch) => patch.name !== undefined || patch.slug !== undefined, {
    message: "name or slug is required",
  });

/** `PATCH /organizations/:id/members/:userId`: `{ role }`. */
export const memberRoleInput = z.object({ role: roleNameField });

/** `POST /organizations/:id/invitations`: `{ email, role }`. */
export const invitationInput = z.object({ email: emailField, role: roleNameField });

/** `POST /invitations/accept` and `/invitations/decline`: `{ token }`. */
export const invitationTokenInput = z.object({ token: opaqueToken });

/** `POST /organizations/:id/roles`: `{ name, permissions }` (a custom role's name is none of the built-in ones). */
export const createRoleInput = z.object({
  name: roleNameField.refine((name) => !["owner", "admin", "member"].includes(name), {
    message: "must not be owner, admin or member",
  }),
  permissions: z.array(permissionField).max(200),
});

/** `PATCH /organizations/:id/roles/:role`: `{ permissions }`. */
export const updateRoleInput = z.object({ permissions: z.array(permissionField).max(200) });

/** A page of a listing: `{ cursor?, limit? }` (`limit` 1 to 100, default 20, also as text). */
export const pageInput = z
  .object({
    cursor: z.string().max(600).regex(PLAIN_TEXT).optional(),
    limit: z.coerce.number().int().min(1).max(100).default(20),
  })
  .strict();

/** `admin.listOrganizations`: `{ query?, cursor?, limit? }`. */
export const adminOrganizationsInput = pageInput.extend({
  query: z.string().max(100).regex(PLAIN_TEXT).default(""),
});
