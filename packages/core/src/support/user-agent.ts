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
    const result = new UAParser(userAgent.slice(0, 512)).getResult();
    browser ??= clean([result.browser.name, result.browser.major].filter(Boolean).join(" "));
    os ??= clean([result.os.name, result.os.version].filter(Boolean).join(" "));
  }
  return { browser, os };
}
