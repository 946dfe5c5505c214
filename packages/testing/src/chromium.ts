/**
 * Debian's Chromium for browser tests (installed with `apt-get install --no-install-recommends
 * chromium`; nothing is downloaded): where it is and how tests launch it headless. The
 * background-networking flags keep it from calling out of a closed network.
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
