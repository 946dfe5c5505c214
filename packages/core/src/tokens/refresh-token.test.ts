import { describe, expect, it } from "vitest";
import { createKeyedHash } from "./keys.js";
import { isSessionId, randomId } from "./random.js";
import { issueRefreshToken, parseRefreshToken, successorRefreshToken } from "./refresh-token.js";

describe("refresh tokens", () => {
  it("issueRefreshToken - carries the session id and 256 random bits; only the hash is stored", () => {
    const a = issueRefreshToken("session-id-123456");
    const b = issueRefreshToken("session-id-123456");
    expect(a.token).not.toBe(b.token);
    expect(a.token.split(".")[1]).toHaveLength(43);
    expect(a.hash).not.toContain(a.token.split(".")[1]);
    expect(parseRefreshToken(a.token)).toEqual({ sessionId: "session-id-123456", hash: a.hash });
  });

  it("successorRefreshToken - the same for one parent, another for another parent or secret; a well-formed token", () => {
    const secret = "first-successor-secret-for-tests-only-9f3K";
    const other = "second-successor-secret-for-tests-only-Qm7x";
    const keyed = createKeyedHash([secret], "refresh token successor v1");
    const rotated = createKeyedHash([other, secret], "refresh token successor v1");
    const parent = issueRefreshToken("session-id-123456");
    const next = successorRefreshToken(keyed, "session-id-123456", parent.token);
    expect(successorRefreshToken(keyed, "session-id-123456", parent.token)).toEqual(next);
    expect(parseRefreshToken(next.token)).toEqual({ sessionId: "session-id-123456", hash: next.hash });
    expect(successorRefreshToken(keyed, "session-id-123456", next.token).token).not.toBe(next.token);
    const afterRotation = successorRefreshToken(rotated, "session-id-123456", parent.token);
    expect(afterRotation.token).not.toBe(next.token);
    expect(afterRotation.candidates.map((candidate) => candidate.hash)).toContain(next.hash);
  });

  it.each([
    "",
    "abc",
    "session-id-123456.short",
    `x.${"a".repeat(43)}`,
    `${"s".repeat(20)}.${"a".repeat(43)}\n`,
    `${"s".repeat(20)}\u0000.${"a".repeat(43)}`,
    `${"s".repeat(65)}.${"a".repeat(43)}`,
  ])("parseRefreshToken - refuses malformed %j", (token) => expect(parseRefreshToken(token)).toBeNull());

  it("isSessionId - every id randomId makes; nothing of another shape (NUL, spaces, non-ASCII, too short or long)", () => {
    for (let i = 0; i < 1_000; i++) expect(isSessionId(randomId())).toBe(true);
    // A store's own ids (store-redis puts an 11-character user tag in front).
    expect(isSessionId(`Xy7_-Q2a0bC${randomId()}`)).toBe(true);
    for (const id of [
      "",
      "\u0000",
      `${"A".repeat(21)}\u0000`,
      "A".repeat(15),
      "A".repeat(65),
      `${"A".repeat(20)} `,
      "é".repeat(22),
      "\ud800".repeat(22),
      "a".repeat(10_240),
    ])
      expect(isSessionId(id), JSON.stringify(id.slice(0, 30))).toBe(false);
  });
});
