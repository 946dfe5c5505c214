import { UAParser } from "ua-parser-js";

export interface DeviceInfo {
  browser: string | null;
  os: string | null;
}

const clean = (value: string | undefined): string | null => {
  const trimmed = value
    ?.replace(/[\p{Cc}\p{Cf}]/gu, "")
    .trim()
    .slice(0, 100);
  return trimmed ? trimmed : null;
};

/** Browser and OS for a session: what the client said, else what its User-Agent shows. */
export function describeDevice(
  stated: { browser?: string | undefined; os?: string | undefined } | undefined,
  userAgent: string | undefined,
): DeviceInfo {
  let browser = clean(stated?.browser);
  let os = clean(stated?.os);
  if ((browser === null || os === null) && userAgent) {
    const parsed = parseUserAgent(userAgent.slice(0, 512));
    browser ??= parsed.browser;
    os ??= parsed.os;
  }
  return { browser, os };
}

/** The most User-Agent strings `parseUserAgent` remembers; past it, it starts over. */
const REMEMBERED_USER_AGENTS = 256;
const parsedUserAgents = new Map<string, DeviceInfo>();

/**
 * Browser and OS as ua-parser-js reads `userAgent`. A host's sign-ins come from a few browsers
 * whose strings repeat, and a parse costs more than the rest of the request's JavaScript around
 * it, so the answers for the last strings seen are kept (at most REMEMBERED_USER_AGENTS, then
 * forgotten together: a flood of unique strings costs a parse each, never memory).
 */
function parseUserAgent(userAgent: string): DeviceInfo {
  const known = parsedUserAgents.get(userAgent);
  if (known) return known;
  const result = new UAParser(userAgent).getResult();
  const parsed = {
    browser: clean([result.browser.name, result.browser.major].filter(Boolean).join(" ")),
    os: clean([result.os.name, result.os.version].filter(Boolean).join(" ")),
  };
  if (parsedUserAgents.size >= REMEMBERED_USER_AGENTS) parsedUserAgents.clear();
  parsedUserAgents.set(userAgent, parsed);
  return parsed;
}
