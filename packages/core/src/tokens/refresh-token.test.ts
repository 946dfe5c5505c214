import { describe, expect, it } from "vitest";
import { issueRefreshToken, parseRefreshToken } from "./refresh-token.js";

describe("refresh tokens", () => {
  it("issueRefreshToken - carries the session id and 256 random bits; only the hash is stored", () => {
    const a = issueRefreshToken("session-id-123456");
    const b = issueRefreshToken("session-id-123456");
    expect(a.token).not.toBe(b.token);
    expect(a.token.split(".")[1]).toHaveLength(43);
    expect(a.hash).not.toContain(a.token.split(".")[1]);
    expect(parseRefreshToken(a.token)).toEqual({ sessionId: "session-id-123456", hash: a.hash });
  });

  it.each([
    "",
    "abc",
    "session-id-123456.short",
    `x.${"a".repeat(43)}`,
    `${"s".repeat(20)}.${"a".repeat(43)}\n`,
  ])("parseRefreshToken - refuses malformed %j", (token) => expect(parseRefreshToken(token)).toBeNull());
});
