import { promises as dns } from "node:dns";
import ipaddr from "ipaddr.js";
import { withTimeout } from "../support/with-timeout.js";

/** One address a host name resolves to (as `dns.promises.lookup(host, { all: true })` gives them). */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to every address it has; rejects when it cannot. */
export type LookupAddresses = (host: string) => Promise<ResolvedAddress[]>;

export interface AddressGuardOptions {
  /** Allows `http:` and addresses that are not public unicast (loopback, private, link-local…). */
  allowPrivateNetworks: boolean;
  /** How host names are resolved. Default: `dns.promises.lookup(host, { all: true })`. */
  lookup?: LookupAddresses | undefined;
  /** How long resolving a name may take (ms). Default 5000. */
  lookupTimeoutMs?: number | undefined;
}

/** Whether a URL may be used, and why not. */
export type WebhookUrlCheck = { ok: true } | { ok: false; reason: string };

/** Where a send may connect: the URL and the addresses the guard checked for it. */
export type WebhookTarget =
  | { ok: true; url: URL; addresses: ResolvedAddress[] }
  | { ok: false; reason: string };

export const defaultLookup: LookupAddresses = (host) => dns.lookup(host, { all: true, verbatim: true });

/** `address` as an IP (an IPv4-mapped IPv6 address as its IPv4), or null when it is not one. */
function parseIp(address: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  if (!ipaddr.isValid(bare)) return null;
  return ipaddr.process(bare);
}

/**
 * Whether `address` is a public unicast address: not loopback, private (10/8, 172.16/12,
 * 192.168/16), link-local (169.254/16, the cloud metadata address among them; fe80::/10),
 * carrier-grade NAT (100.64/10), 0/8, unique-local (fc00::/7), multicast, broadcast or reserved.
 */
export function isPublicAddress(address: string): boolean {
  const ip = parseIp(address);
  return ip !== null && ip.range() === "unicast";
}

/** The checks that need no name resolution: the URL parses, its scheme, no credentials, a literal IP's range. */
export function checkWebhookUrlSyntax(url: string, options: AddressGuardOptions): WebhookUrlCheck {
  if (!URL.canParse(url)) return { ok: false, reason: "not a URL" };
  const parsed = new URL(url);
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:")
    return { ok: false, reason: "not an http(s) URL" };
  if (parsed.protocol === "http:" && !options.allowPrivateNetworks) return { ok: false, reason: "not https" };
  if (parsed.username !== "" || parsed.password !== "")
    return { ok: false, reason: "credentials in the URL" };
  if (parsed.hostname === "") return { ok: false, reason: "no host" };
  const literal = parseIp(parsed.hostname);
  if (literal !== null && !options.allowPrivateNetworks && literal.range() !== "unicast")
    return { ok: false, reason: `blocked address ${literal.toString()}` };
  return { ok: true };
}

/**
 * Resolves `url`'s host and checks every address it has: refused when ANY is not public unicast
 * (unless `allowPrivateNetworks`), so a name cannot mix a public address with an internal one.
 * A send connects only to the addresses returned here (no second resolution it could be tricked by).
 */
export async function resolveWebhookTarget(
  url: string,
  options: AddressGuardOptions,
): Promise<WebhookTarget> {
  const syntax = checkWebhookUrlSyntax(url, options);
  if (!syntax.ok) return syntax;
  const parsed = new URL(url);
  const literal = parseIp(parsed.hostname);
  if (literal !== null) {
    const family = literal.kind() === "ipv4" ? 4 : 6;
    return { ok: true, url: parsed, addresses: [{ address: literal.toString(), family }] };
  }
  let addresses: ResolvedAddress[];
  try {
    const lookup = options.lookup ?? defaultLookup;
    addresses = await withTimeout(
      lookup(parsed.hostname),
      options.lookupTimeoutMs ?? 5_000,
      "lookup timed out",
    );
  } catch {
    return { ok: false, reason: "host not found" };
  }
  if (addresses.length === 0) return { ok: false, reason: "host not found" };
  if (!options.allowPrivateNetworks) {
    const blocked = addresses.find((entry) => !isPublicAddress(entry.address));
    if (blocked) return { ok: false, reason: `blocked address ${blocked.address}` };
  }
  return { ok: true, url: parsed, addresses };
}

/**
 * The check of a URL when an endpoint is registered or changed: the scheme, no credentials, and
 * every address its host resolves to public (unless `allowPrivateNetworks`, which needs no
 * resolution). A name that does not resolve (yet) is accepted: its DNS may come later, and every
 * send checks again.
 */
export async function checkWebhookUrl(url: string, options: AddressGuardOptions): Promise<WebhookUrlCheck> {
  if (options.allowPrivateNetworks) return checkWebhookUrlSyntax(url, options);
  const target = await resolveWebhookTarget(url, options);
  if (target.ok) return { ok: true };
  if (target.reason === "host not found") return { ok: true };
  return { ok: false, reason: target.reason };
}
