import { isIP } from "node:net";
import { boundedMemo } from "../support/bounded-memo.js";

/**
 * Socket addresses already normalized, in an LRU: a server sees the same clients' addresses again
 * and again (the bench's GET /me: about 7 % more requests per CPU-second, bench/README.md).
 */
const normalizeSocketAddress = boundedMemo(10_000, (raw: string) => normalizeAddress(raw));

/** An address as written in a socket or a forwarded header, without port, brackets or IPv4-mapping. */
function normalizeAddress(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  let value = raw.trim();
  if (value.startsWith("["))
    value = value.slice(1, value.indexOf("]") === -1 ? undefined : value.indexOf("]"));
  else if (/^\d{1,3}(\.\d{1,3}){3}:\d+$/.test(value)) value = value.slice(0, value.lastIndexOf(":"));
  const zone = value.indexOf("%");
  if (zone !== -1) value = value.slice(0, zone);
  value = value.toLowerCase();
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(value);
  if (mapped?.[1]) value = mapped[1];
  return isIP(value) === 0 ? undefined : value;
}

/**
 * The client's IP (docs/limits.md): the socket's address, or with `trustProxy` hops the entry that
 * many places from the right of `X-Forwarded-For` (each trusted proxy appends the address it saw,
 * so entries further left are the client's own claims and never decide). Undefined when unknown.
 */
export function resolveClientIp(
  remoteAddress: string | undefined,
  forwardedFor: string | readonly string[] | undefined,
  trustProxy: number,
): string | undefined {
  const socket = remoteAddress === undefined ? undefined : normalizeSocketAddress(remoteAddress);
  if (trustProxy === 0 || forwardedFor === undefined) return socket;
  const entries = (Array.isArray(forwardedFor) ? forwardedFor.join(",") : String(forwardedFor))
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  if (entries.length === 0) return socket;
  // Hop 0 is the socket (our nearest proxy); hop k is the k-th entry from the right.
  const chosen = entries[Math.max(entries.length - trustProxy, 0)];
  return normalizeAddress(chosen) ?? socket;
}

/** Loopback clients (127.0.0.0/8, ::1) are not limited per IP (unless `isUntrustedProxy`). */
export function isLoopback(ip: string): boolean {
  return ip === "::1" || /^127\./.test(ip);
}

/** IPv6 groups, expanded to eight. */
function ipv6Groups(ip: string): string[] {
  const [head = "", tail] = ip.split("::");
  const left = head === "" ? [] : head.split(":");
  const right = tail === undefined || tail === "" ? [] : tail.split(":");
  const last = right.length > 0 ? right : left;
  // An embedded IPv4 tail (e.g. 64:ff9b::1.2.3.4) counts as two groups.
  const v4 = last[last.length - 1]?.includes(".") ? last.pop() : undefined;
  if (v4) {
    const [a = 0, b = 0, c = 0, d = 0] = v4.split(".").map(Number);
    last.push(((a << 8) | b).toString(16), ((c << 8) | d).toString(16));
  }
  const missing = 8 - left.length - right.length;
  return [...left, ...Array(tail === undefined ? 0 : missing).fill("0"), ...right].map((group) =>
    Number.parseInt(group, 16).toString(16),
  );
}

/** The headers a proxy sets to name the client it forwards for. */
const FORWARDING_HEADERS = ["x-forwarded-for", "forwarded", "x-real-ip"] as const;

/**
 * Whether a request whose client IP resolved to `ip` came through a proxy on this host that
 * `trustProxy` does not name: a loopback socket carrying a forwarding header (`X-Forwarded-For`,
 * `Forwarded` or `X-Real-IP`) while `trustProxy` is 0. Such a request is limited per IP like any
 * other (every visitor is then the loopback address, in one bucket): only a really local client
 * is exempt.
 */
export function isUntrustedProxy(
  ip: string | undefined,
  headers: Readonly<Record<string, string | readonly string[] | undefined>>,
  trustProxy: number,
): boolean {
  if (trustProxy !== 0 || ip === undefined || !isLoopback(ip)) return false;
  return FORWARDING_HEADERS.some((name) => headers[name] !== undefined);
}

/**
 * The per-IP bucket of an address: IPv4 as is, IPv6 by its /64 prefix (one subscriber usually
 * holds a whole /64, so counting single addresses would be no limit). Null for loopback, unless
 * `countLoopback` (a proxy in front that `trustProxy` does not name, `isUntrustedProxy`).
 */
export function ipBucket(ip: string | undefined, countLoopback = false): string | null {
  if (ip === undefined) return null;
  if (isLoopback(ip)) return countLoopback ? ip : null;
  if (isIP(ip) === 4) return ip;
  return `${ipv6Groups(ip).slice(0, 4).join(":")}::/64`;
}
