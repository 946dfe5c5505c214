/**
 * How many bits of entropy a configured secret carries, estimated conservatively (security.md F3).
 *
 * The secret is read as the cheapest description of it, found by dynamic programming over its
 * characters (in the spirit of zxcvbn, without its password dictionaries). Every character
 * costs `log2(alphabet)` bits, where the alphabet is the union of the character classes the
 * secret uses: digits 10; letters 26 per case, or 6 per case when every letter is a hex digit;
 * the distinct symbols it contains; the distinct non-ASCII characters it contains. Raw bytes
 * that are not printable ASCII use an alphabet of 256. A stretch is cheaper when it is:
 *
 * - a repeat of an earlier stretch (runs `aaaa`, periods `abcabc`, `password` × 4):
 *   `log2(position) + log2(length)`;
 * - a sequence, each character one or two after (or before) the last, in code points or in the
 *   hex order `0-9a-f` (`abcd`, `0123`, `89ab`, `fedc`, `aceg`): `log2(alphabet) + 2 + log2(length)`;
 * - a keyboard walk along a row or a column (`qwerty`, `asdf`, `1qaz`, `!@#$`): `log2(walk keys × 2) + log2(length)`;
 * - a placeholder word (`password`, `changeme`, `secret`, `letmein`, …), also in l33t
 *   (`p@ssw0rd`): `log2(words) + 2` bits.
 *
 * Words, walks and sequences are matched without regard to case (one more bit when it has
 * upper case). Base64 padding (`=` at the end) is ignored. The estimate errs low: a secret from a
 * CSPRNG loses a few bits to chance patterns, `openssl rand -hex 32` estimates about 250 bits and
 * `openssl rand -base64 32` about 255, while a placeholder of any length estimates a few dozen.
 */
export function estimateSecretBits(secret: string | Uint8Array): number {
  const { symbols, binary } = symbolsOf(secret);
  while (symbols.length > 0 && symbols[symbols.length - 1] === "=") symbols.pop();
  const n = Math.min(symbols.length, MAX_ANALYZED);
  if (n === 0) return 0;
  const text = symbols.slice(0, n);
  const folded = text.map((symbol) => symbol.toLowerCase());
  const perSymbol = Math.log2(binary ? 256 : alphabetSize(text));

  // best[i]: the fewest bits that describe text[0..i).
  const best = new Float64Array(n + 1).fill(Number.POSITIVE_INFINITY);
  best[0] = 0;
  const offer = (from: number, length: number, bits: number) => {
    const to = from + length;
    const candidate = (best[from] ?? 0) + bits;
    if (candidate < (best[to] ?? Number.POSITIVE_INFINITY)) best[to] = candidate;
  };
  const longestRepeat = longestEarlierRepeats(text);
  const caseBit = (from: number, length: number) =>
    text.slice(from, from + length).some((symbol, i) => symbol !== folded[from + i]) ? 1 : 0;

  for (let i = 0; i < n; i++) {
    offer(i, 1, perSymbol);
    for (let length = MIN_PATTERN; length <= (longestRepeat[i] ?? 0); length++)
      offer(i, length, Math.log2(i) + Math.log2(length));
    for (const length of sequenceLengths(text, folded, i))
      offer(i, length, perSymbol + 2 + Math.log2(length) + caseBit(i, length));
    for (const length of walkLengths(folded, i))
      offer(i, length, WALK_BITS + Math.log2(length) + caseBit(i, length));
    for (const length of wordLengths(folded, i)) offer(i, length, WORD_BITS + caseBit(i, length));
  }
  return best[n] ?? 0;
}

/** The fewest estimated bits a secret must have, not counting any pattern in it. */
export const MIN_SECRET_BITS = 128;

/** Whether a secret is too predictable to sign tokens: `estimateSecretBits` of 128 or less. */
export function isWeakSecret(secret: string | Uint8Array): boolean {
  return estimateSecretBits(secret) <= MIN_SECRET_BITS;
}

/** Only the first characters are read: enough to judge, and the work stays quadratic in a bounded length. */
const MAX_ANALYZED = 512;
/** Patterns shorter than this are left to the per-character cost. */
const MIN_PATTERN = 3;

const ROWS = [
  "`1234567890-=",
  "qwertyuiop[]\\",
  "asdfghjkl;'",
  "zxcvbnm,./",
  "~!@#$%^&*()_+",
  "qwertzuiopü",
  "azertyuiop",
  "qsdfghjklm",
  "wxcvbn",
  "yxcvbnm",
];
const COLUMNS = ["1qaz", "2wsx", "3edc", "4rfv", "5tgb", "6yhn", "7ujm", "8ik,", "9ol.", "0p;/"];
const SHIFTED_COLUMNS = ["!qaz", "@wsx", "#edc", "$rfv", "%tgb", "^yhn", "&ujm", "*ik<", "(ol>", ")p:?"];
const WALKS = [...ROWS, ...COLUMNS, ...SHIFTED_COLUMNS].flatMap((walk) => [
  walk,
  [...walk].reverse().join(""),
]);
const WALK_BITS = Math.log2(WALKS.reduce((sum, walk) => sum + walk.length, 0));

const WORDS = [
  "password",
  "passwort",
  "passphrase",
  "changeme",
  "changeit",
  "change",
  "secret",
  "letmein",
  "admin",
  "root",
  "test",
  "testing",
  "example",
  "sample",
  "dummy",
  "default",
  "placeholder",
  "replace",
  "insecure",
  "unsafe",
  "development",
  "develop",
  "local",
  "localhost",
  "production",
  "staging",
  "welcome",
  "master",
  "token",
  "signing",
  "session",
  "portcullis",
  "auth",
  "jwt",
  "hmac",
  "key",
  "foobar",
  "foo",
  "bar",
  "baz",
  "hello",
  "world",
  "iloveyou",
  "monkey",
  "dragon",
  "qwerty",
  "abc",
  "xyz",
];
const WORD_BITS = Math.log2(WORDS.length) + 1;
const LEET: Record<string, string> = {
  "@": "a",
  "4": "a",
  "8": "b",
  "3": "e",
  "6": "g",
  "1": "i",
  "!": "i",
  "0": "o",
  $: "s",
  "5": "s",
  "7": "t",
  "+": "t",
  "2": "z",
};

/** The secret as symbols: the characters of a string or of printable ASCII bytes, else one per byte. */
function symbolsOf(secret: string | Uint8Array): { symbols: string[]; binary: boolean } {
  if (typeof secret === "string") return { symbols: [...secret], binary: false };
  const binary = !secret.every((byte) => byte >= 0x20 && byte <= 0x7e);
  // Binary bytes map to a range of their own, so no word or walk matches them (sequences still do).
  const symbols = [...secret].map((byte) => String.fromCharCode(binary ? 0x100 + byte : byte));
  return { symbols, binary };
}

/** The union of the character classes the secret uses (see `estimateSecretBits`). */
function alphabetSize(text: readonly string[]): number {
  const present = new Set(text);
  let lower = false;
  let upper = false;
  let digits = false;
  let hexLetters = true;
  const others = new Set<string>();
  for (const symbol of present) {
    if (/^[a-z]$/.test(symbol)) lower = true;
    else if (/^[A-Z]$/.test(symbol)) upper = true;
    else if (/^[0-9]$/.test(symbol)) digits = true;
    else others.add(symbol);
    if (/^[g-zG-Z]$/.test(symbol)) hexLetters = false;
  }
  const perCase = hexLetters ? 6 : 26;
  return Math.max(2, (digits ? 10 : 0) + (lower ? perCase : 0) + (upper ? perCase : 0) + others.size);
}

/** For each position, the longest stretch starting there that also starts at an earlier position (overlap allowed). */
function longestEarlierRepeats(text: readonly string[]): Uint16Array {
  const n = text.length;
  const longest = new Uint16Array(n);
  // run[j]: the common length of the stretches at p and j, for the current p, filled from the end.
  let next = new Uint16Array(n + 1);
  let run = new Uint16Array(n + 1);
  for (let p = n - 1; p >= 0; p--) {
    for (let j = n - 1; j > p; j--) {
      const common = text[p] === text[j] ? (next[j + 1] ?? 0) + 1 : 0;
      run[j] = common;
      if (common > (longest[j] ?? 0)) longest[j] = common;
    }
    [next, run] = [run, next];
  }
  return longest;
}

const HEX_ORDER = "0123456789abcdef";

/** Lengths (at least MIN_PATTERN) of the sequences starting at `i`, in code points or hex order. */
function sequenceLengths(text: readonly string[], folded: readonly string[], i: number): number[] {
  const lengths: number[] = [];
  const orders: ((symbol: string) => number)[] = [
    (symbol) => symbol.codePointAt(0) ?? 0,
    (symbol) => (HEX_ORDER.includes(symbol) ? HEX_ORDER.indexOf(symbol) : Number.NaN),
  ];
  for (const [k, order] of orders.entries()) {
    const source = k === 0 ? text : folded;
    for (const step of [1, -1, 2, -2]) {
      let length = 1;
      while (i + length < source.length) {
        const previous = order(source[i + length - 1] ?? "");
        const current = order(source[i + length] ?? "");
        if (!(current - previous === step)) break;
        length++;
      }
      if (length >= MIN_PATTERN) lengths.push(length);
    }
  }
  return lengths;
}

/** Lengths of the keyboard walks starting at `i`. */
function walkLengths(folded: readonly string[], i: number): number[] {
  const lengths: number[] = [];
  for (const walk of WALKS) {
    let length = 0;
    const at = walk.indexOf(folded[i] ?? "");
    if (at === -1) continue;
    // Each key occurs once in a walk: follow it from there.
    while (at + length < walk.length && walk[at + length] === folded[i + length]) length++;
    if (length >= MIN_PATTERN) lengths.push(length);
  }
  return lengths;
}

/** Lengths of the placeholder words starting at `i`, as written or in l33t. */
function wordLengths(folded: readonly string[], i: number): number[] {
  const lengths: number[] = [];
  for (const word of WORDS) {
    if (i + word.length > folded.length) continue;
    let matches = true;
    for (let k = 0; k < word.length && matches; k++) {
      const symbol = folded[i + k] ?? "";
      matches = symbol === word[k] || LEET[symbol] === word[k];
    }
    if (matches) lengths.push(word.length);
  }
  return lengths;
}
