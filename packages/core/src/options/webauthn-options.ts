import { z } from "zod";

/** How long a passkey challenge can be answered: 5 minutes (also the ceremony's `timeout`). */
export const PASSKEY_CHALLENGE_TTL_MS = 5 * 60 * 1000;
/** How long an expired challenge is kept, so it can be told from an unknown one. */
const CHALLENGE_GRACE_MS = 10 * 60 * 1000;
/** How long the store keeps a challenge: its 5 minutes and the grace period (15 minutes). */
export const PASSKEY_CHALLENGE_KEPT_MS = PASSKEY_CHALLENGE_TTL_MS + CHALLENGE_GRACE_MS;
/** The default of `webauthn.maxOutstandingChallenges`: sign-in starts per 15 minutes, all clients. */
export const DEFAULT_MAX_OUTSTANDING_CHALLENGES = 10_000;

const hostLabel = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const isDomain = (value: string) =>
  value.length <= 253 && value.split(".").every((label) => hostLabel.test(label));

export const webAuthnOptionsSchema = z
  .object({
    rpId: z
      .string()
      .refine(isDomain, { message: "must be a lower-case domain name like example.com (no scheme or port)" })
      .optional(),
    rpName: z.string().min(1).max(100).optional(),
    origins: z.array(z.string()).min(1).max(20).optional(),
    maxOutstandingChallenges: z.number().int().min(1).max(10_000_000).optional(),
  })
  .optional();

/** The `webauthn` option as the ceremonies use it: every value filled in. */
export interface ResolvedWebAuthn {
  rpId: string;
  rpName: string;
  origins: string[];
}

/** `host` is `rpId`, or below it with `rpId` not a bare top-level label (a public suffix like `com`). */
function isHostWithin(host: string, rpId: string): boolean {
  if (host === rpId) return true;
  return host.endsWith(`.${rpId}`) && rpId.includes(".");
}

const isIp = (host: string) => /^[0-9.]+$/.test(host) || host.startsWith("[");

/**
 * Fills in `webauthn`'s defaults from `appOrigin` and checks that they can work together; the
 * message of each problem names the option (`createAuth` throws it as a `TypeError`).
 */
export function resolveWebAuthn(
  input: z.output<typeof webAuthnOptionsSchema>,
  appOrigin: string | undefined,
  brandName: string,
): { value?: ResolvedWebAuthn; problems: { path: string; message: string }[] } {
  if (input === undefined) return { problems: [] };
  if (appOrigin === undefined)
    return { problems: [{ path: "appOrigin", message: "is required while webauthn is configured" }] };
  const app = new URL(appOrigin);
  const rpId = input.rpId ?? app.hostname;
  const origins = input.origins ?? [app.origin];
  const problems: { path: string; message: string }[] = [];
  if (isIp(app.hostname))
    problems.push({ path: "appOrigin", message: "must have a domain name (not an IP address) for webauthn" });
  else if (!isHostWithin(app.hostname, rpId))
    problems.push({
      path: "webauthn.rpId",
      message: `must be appOrigin's host (${app.hostname}) or a registrable suffix of it`,
    });
  origins.forEach((origin, index) => {
    const url = URL.canParse(origin) ? new URL(origin) : null;
    const path = `webauthn.origins.${index}`;
    if (url === null || url.origin !== origin) {
      problems.push({ path, message: "must be an origin like https://app.example.com (no path or slash)" });
    } else if (url.protocol !== "https:" && url.hostname !== "localhost") {
      problems.push({ path, message: "must be https (browsers allow http only on localhost)" });
    } else if (!isHostWithin(url.hostname, rpId)) {
      problems.push({ path, message: `must be on rpId (${rpId}) or a subdomain of it` });
    }
  });
  if (!origins.includes(app.origin))
    problems.push({ path: "webauthn.origins", message: `must include appOrigin's origin (${app.origin})` });
  return { value: { rpId, rpName: input.rpName ?? brandName, origins }, problems };
}
