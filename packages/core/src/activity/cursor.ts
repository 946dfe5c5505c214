import { ValidationError } from "../errors.js";
import type { ActivityPosition } from "../ports/activity-store.js";
import { fieldIssue } from "../validation.js";

/** The opaque cursor of `GET /activity`: the last entry's position, base64url. */
export function encodeActivityCursor(position: ActivityPosition): string {
  return Buffer.from(`${position.at}.${position.id}`).toString("base64url");
}

/** The position a cursor names; `VALIDATION_FAILED` (at `cursor`) for one this server did not make. */
export function decodeActivityCursor(cursor: string): ActivityPosition {
  const text = /^[A-Za-z0-9_-]{1,120}$/.test(cursor)
    ? Buffer.from(cursor, "base64url").toString("latin1")
    : "";
  const match = /^(\d{1,16})\.([0-9a-z]{1,64})$/.exec(text);
  if (!match) throw new ValidationError([fieldIssue("cursor", "invalid_cursor")]);
  return { at: Number(match[1]), id: match[2] as string };
}
