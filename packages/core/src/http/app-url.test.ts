import { describe, expect, it } from "vitest";
import { parseReturnTo } from "../identity/flow.js";
import { appUrlFor } from "./app-url.js";

const APP = "https://app.example.test";
const ORIGIN = new URL(APP).origin;

/** A small seeded generator (mulberry32), so a failure can be replayed. */
function seeded(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Pieces a hostile `returnTo` is made of: dot segments, encoded dots and slashes, backslashes, controls, schemes. */
const PIECES = [
  "/",
  "//",
  "///",
  "\\",
  "/\\",
  "\\/",
  ".",
  "..",
  "/.",
  "/..",
  "./",
  "../",
  "%2e",
  "%2E",
  "%2e%2e",
  ".%2e",
  "%2f",
  "%2F",
  "%5c",
  "%5C",
  "%252f",
  "\t",
  "\n",
  "\r",
  "%09",
  "%0a",
  "%0d",
  "\u0000",
  "%00",
  " ",
  "%20",
  "evil.test",
  "evil.test:443",
  "@evil.test",
  "user:pass@",
  "http:",
  "https:",
  "javascript:",
  "data:",
  "//evil.test",
  "http://evil.test",
  "https:evil.test",
  "a",
  "settings",
  "x?y=1",
  "?next=//evil.test",
  "#",
  "#//evil.test",
  ";",
  ":",
  "%",
  "%%",
  "\u3002",
  "\uff0f",
  "\u2215",
  "\u200b",
  "\ufeff",
  "?",
  "&",
  "=",
];

function generate(random: () => number): string {
  const length = 1 + Math.floor(random() * 8);
  let value = random() < 0.7 ? "/" : "";
  for (let i = 0; i < length; i++) value += PIECES[Math.floor(random() * PIECES.length)];
  return value;
}

describe("returnTo", () => {
  it.each([
    ["/.//evil.test"],
    ["/a/..//evil.test/x?y=1"],
    ["/%2e%2e//evil.test"],
    ["/./\\evil.test"],
    ["/..//evil.test"],
  ])("parseReturnTo - refuses a path that normalizes to another origin (%s)", (value) => {
    expect(() => parseReturnTo(APP, value)).toThrow(expect.objectContaining({ code: "VALIDATION_FAILED" }));
  });

  it("parseReturnTo - keeps a plain path as given, and normalizes dot segments it can keep", () => {
    expect(parseReturnTo(APP, "/settings?tab=security#x")).toBe("/settings?tab=security#x");
    expect(parseReturnTo(APP, "/a/../b/./c")).toBe("/b/c");
    expect(parseReturnTo(APP, "/%2e%2e/x")).toBe("/x");
  });

  it("parseReturnTo - property: 20,000 generated values are refused or give a path that redirects on appOrigin", () => {
    const random = seeded(20_240_611);
    let accepted = 0;
    for (let i = 0; i < 20_000; i++) {
      const value = generate(random);
      let path: string;
      try {
        path = parseReturnTo(APP, value);
      } catch (error) {
        expect((error as { code?: string }).code, value).toBe("VALIDATION_FAILED");
        continue;
      }
      accepted++;
      // The value used is the value checked: normalizing it again changes nothing.
      expect(parseReturnTo(APP, path), value).toBe(path);
      expect(path.startsWith("/") && !path.startsWith("//"), value).toBe(true);
      for (const extra of [{}, { stepUp: "1" }, { linked: "github" }] as Record<string, string>[])
        expect(new URL(appUrlFor(APP, path, extra)).origin, value).toBe(ORIGIN);
      // A browser resolves the Location header the same way.
      expect(new URL(appUrlFor(APP, path), "https://other.test").origin, value).toBe(ORIGIN);
    }
    // The generator is not so hostile that nothing gets through.
    expect(accepted).toBeGreaterThan(1_000);
  });

  it("appUrlFor - a path that resolves elsewhere falls back to appOrigin itself", () => {
    expect(appUrlFor(APP, "//evil.test/x", { error: "X" })).toBe(`${APP}/?error=X`);
    expect(appUrlFor(APP, "https://evil.test/")).toBe(`${APP}/`);
    expect(appUrlFor(`${APP}/app`, "", { error: "X" })).toBe(`${APP}/app?error=X`);
    expect(appUrlFor(APP, "/settings?tab=1", { linked: "github" })).toBe(
      `${APP}/settings?tab=1&linked=github`,
    );
  });
});
