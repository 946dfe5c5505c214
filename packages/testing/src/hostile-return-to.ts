/**
 * Hostile `returnTo` values for property tests of a redirect check: dot segments, encoded dots
 * and slashes, backslashes, control characters, `//`, schemes, credentials and look-alike
 * Unicode, joined at random from a seeded generator (mulberry32), so a failure can be replayed.
 */

/** `returnTo` values whose raw form is a path but which resolve to `//evil.test` (issue 24). */
export const RETURN_TOS_TO_ANOTHER_ORIGIN: readonly string[] = [
  "/.//evil.test",
  "/a/..//evil.test/x?y=1",
  "/%2e%2e//evil.test",
];

/** The pieces a hostile `returnTo` is made of. */
export const HOSTILE_RETURN_TO_PIECES: readonly string[] = [
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

/** A seeded generator of numbers in [0, 1) (mulberry32). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` hostile values from `seed`, the same on every run: 1-8 pieces, most after a leading "/". */
export function hostileReturnTos(seed: number, count: number): string[] {
  const random = seededRandom(seed);
  const pick = () => HOSTILE_RETURN_TO_PIECES[Math.floor(random() * HOSTILE_RETURN_TO_PIECES.length)];
  return Array.from({ length: count }, () => {
    const length = 1 + Math.floor(random() * 8);
    let value = random() < 0.7 ? "/" : "";
    for (let i = 0; i < length; i++) value += pick();
    return value;
  });
}
