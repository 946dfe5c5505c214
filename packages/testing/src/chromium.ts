/**
 * Debian's Chromium for browser tests (installed with `apt-get install --no-install-recommends
 * chromium`; nothing is downloaded): where it is and how tests launch it headless. The
 * background-networking flags keep it from calling out of a closed network.
 *
 * The full browser in its headless mode, not Debian's `chromium-headless-shell` (the old headless
 * mode, what Playwright itself runs headless by default): measured on 19 tests of the example UI's
 * suite (2026-12-01), the shell took half the CPU (Chromium's processes 51 s against 114 s, the
 * run 80 s against 117 s), but 4 of the 19 failed there (a session revoked elsewhere shown on
 * focus and on visibility, the second step's page, the confirmations in the page, the data
 * download). Users run the full browser; the suite checks what they get. Flags that share renderer
 * processes (`--renderer-process-limit=2`, site isolation off) saved about 10 % of Chromium's CPU,
 * within the spread of one run, and skipping the screenshots about 1 %: neither is used.
 */
export const CHROMIUM_PATH = "/usr/bin/chromium";

export const CHROMIUM_ARGS: readonly string[] = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
