import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import type { AuditDraft, AuditEntry, AuditLinks } from "../ports/audit-log-store.js";
import { createKeyedHash, type KeyMaterial, keyBytes } from "../tokens/keys.js";

/** The keyed parts of the audit log: the hash of its chains and the sealing of its cursors. */
export interface AuditSeal {
  /** The hash of a draft at its place in the chains, under the current `secret`: the store's `seal`. */
  seal(draft: AuditDraft, links: AuditLinks): string;
  /** Whether `entry.hash` is the seal of its fields and links under any `secret` (rotated ones too). */
  holds(entry: AuditEntry): boolean;
  /** An opaque cursor naming the position `seq`, under the current `secret`; never the same text twice. */
  sealCursor(seq: number): string;
  /** The position a cursor names, when it opens under any `secret` (rotated ones too); else undefined. */
  openCursor(cursor: string): number | undefined;
}

/**
 * Every field of an entry and its links, in a fixed order, as one JSON array: unambiguous (no
 * separator a value could contain), and versioned so another encoding can come later.
 */
export function canonicalAuditEntry(draft: AuditDraft, links: AuditLinks): string {
  return JSON.stringify([
    "audit v1",
    draft.id,
    draft.at,
    draft.type,
    draft.actorType,
    draft.actorId,
    draft.userId,
    draft.organizationId,
    draft.sessionId,
    draft.ip,
    draft.userAgent,
    draft.reason,
    links.seq,
    links.prevHash,
    links.orgPrevHash,
  ]);
}

/** A cursor's random IV and its GCM tag, in bytes. */
const CURSOR_IV_BYTES = 12;
const CURSOR_TAG_BYTES = 16;
/** What a cursor seals: `a` and the position, 16 decimal digits (so every cursor has one length). */
const CURSOR_TEXT = /^a(\d{16})$/;

/** The text `body` seals under `key`, or undefined when its tag does not hold. */
function openWith(key: Buffer, iv: Buffer, body: Buffer, tag: Buffer): string | undefined {
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, iv, { authTagLength: CURSOR_TAG_BYTES });
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(body), decipher.final()]).toString("latin1");
  } catch {
    return undefined;
  }
}

/**
 * The audit log's cursors: a position (`seq`) sealed with AES-256-GCM under a key derived with
 * HKDF from each `secret` (purpose `audit cursor v1`), a random IV each time, as base64url of IV,
 * ciphertext and tag. The first secret seals, every one opens, so a cursor made before a rotation
 * still pages. A reader learns nothing from a cursor (not even whether two name the same place,
 * nor from its length how far into the log it is: the position is padded to 16 digits),
 * and nobody without the secret can make one.
 */
export function createAuditCursors(
  secrets: readonly KeyMaterial[],
): Pick<AuditSeal, "sealCursor" | "openCursor"> {
  const keys = secrets.map((secret) =>
    Buffer.from(hkdfSync("sha256", keyBytes(secret), new Uint8Array(0), "portcullis audit cursor v1", 32)),
  );
  const current = keys[0];
  if (!current) throw new TypeError("at least one secret is required");
  return {
    sealCursor(seq) {
      const iv = randomBytes(CURSOR_IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", current, iv, { authTagLength: CURSOR_TAG_BYTES });
      const body = Buffer.concat([
        cipher.update(`a${String(seq).padStart(16, "0")}`, "latin1"),
        cipher.final(),
      ]);
      return Buffer.concat([iv, body, cipher.getAuthTag()]).toString("base64url");
    },
    openCursor(cursor) {
      if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) return undefined;
      const bytes = Buffer.from(cursor, "base64url");
      if (bytes.length <= CURSOR_IV_BYTES + CURSOR_TAG_BYTES) return undefined;
      const iv = bytes.subarray(0, CURSOR_IV_BYTES);
      const body = bytes.subarray(CURSOR_IV_BYTES, bytes.length - CURSOR_TAG_BYTES);
      const tag = bytes.subarray(bytes.length - CURSOR_TAG_BYTES);
      for (const key of keys) {
        const match = CURSOR_TEXT.exec(openWith(key, iv, body, tag) ?? "");
        if (match) return Number(match[1]);
      }
      return undefined;
    },
  };
}

/**
 * HMAC-SHA-256 under a key derived with HKDF from each `secret` (purpose `audit log v1`, as API
 * keys' `api key v1`): the first secret seals, every one verifies, so a rotated secret still
 * verifies the entries it sealed. Without the secret nobody can re-seal an entry they changed.
 * The cursors of the audit routes are sealed too (`createAuditCursors`).
 */
export function createAuditSeal(secrets: readonly KeyMaterial[]): AuditSeal {
  const keyed = createKeyedHash(secrets, "audit log v1");
  return {
    seal: (draft, links) => keyed.hash(canonicalAuditEntry(draft, links)),
    holds: (entry) => keyed.candidates(canonicalAuditEntry(entry, entry)).includes(entry.hash),
    ...createAuditCursors(secrets),
  };
}
