import { z } from "zod";
import type { ApiKeyRecord } from "../ports/api-key-store.js";

/** An API key as its owner sees it: never the key, nor its hash. */
export interface ApiKeyView {
  id: string;
  name: string;
  /** The key's first characters (`pc_` and 8 more), to tell keys apart. */
  start: string;
  /** ISO 8601. */
  createdAt: string;
  /** ISO 8601; null: never expires. */
  expiresAt: string | null;
  /** ISO 8601, to the minute; null: never used. */
  lastUsedAt: string | null;
  /** The organization an organization's key acts for; null for a user's key. */
  organizationId: string | null;
  /** An organization's key: the permissions it was given; null for a user's key. */
  permissions: string[] | null;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function toApiKeyView(record: ApiKeyRecord): ApiKeyView {
  return {
    id: record.id,
    name: record.name,
    start: record.start,
    createdAt: new Date(record.createdAt).toISOString(),
    expiresAt: iso(record.expiresAt),
    lastUsedAt: iso(record.lastUsedAt),
    organizationId: record.organizationId,
    permissions: record.permissions === null ? null : [...record.permissions],
  };
}

/** No control or format characters (CR/LF, NUL, bidi overrides) in a key's name. */
const PLAIN_TEXT = /^[^\p{Cc}\p{Cf}]*$/u;

/**
 * `POST /api-keys`: `{ name, expiresInDays?, organizationId?, permissions? }`. `permissions` only
 * with `organizationId` (an organization's key: 1 to 100 of the declared or built-in ones).
 */
export const createApiKeyInput = z
  .object({
    name: z.string().trim().min(1).max(100).regex(PLAIN_TEXT),
    expiresInDays: z.number().int().min(1).max(3650).optional(),
    organizationId: z.string().min(1).max(128).optional(),
    permissions: z
      .array(z.string().regex(/^[a-z0-9:_-]{1,64}$/))
      .min(1)
      .max(100)
      .optional(),
  })
  .refine((input) => input.organizationId !== undefined || input.permissions === undefined, {
    message: "only an organization's key has permissions",
    path: ["permissions"],
  })
  .refine((input) => input.organizationId === undefined || input.permissions !== undefined, {
    message: "an organization's key needs its permissions",
    path: ["permissions"],
  });
