import { describe, expect, it } from "vitest";
import { ipBucket, isLoopback, isUntrustedProxy, resolveClientIp } from "./client-ip.js";

describe("client ip", () => {
  it("resolveClientIp - without trustProxy, the socket's address; X-Forwarded-For is ignored", () => {
    expect(resolveClientIp("203.0.113.7", "1.2.3.4", 0)).toBe("203.0.113.7");
    expect(resolveClientIp("::ffff:203.0.113.7", undefined, 0)).toBe("203.0.113.7");
    expect(resolveClientIp(undefined, "1.2.3.4", 0)).toBeUndefined();
  });

  it("resolveClientIp - with N trusted hops, the N-th entry from the right; forged left entries never decide", () => {
    expect(resolveClientIp("127.0.0.1", "203.0.113.7", 1)).toBe("203.0.113.7");
    expect(resolveClientIp("127.0.0.1", "6.6.6.6, 203.0.113.7", 1)).toBe("203.0.113.7");
    expect(resolveClientIp("127.0.0.1", ["6.6.6.6", "203.0.113.7, 10.0.0.2"], 2)).toBe("203.0.113.7");
    expect(resolveClientIp("127.0.0.1", "203.0.113.7", 3)).toBe("203.0.113.7");
    expect(resolveClientIp("127.0.0.1", "[2001:db8::1]:443", 1)).toBe("2001:db8::1");
    expect(resolveClientIp("127.0.0.1", "203.0.113.7:5678", 1)).toBe("203.0.113.7");
    expect(resolveClientIp("10.0.0.1", "not-an-ip", 1)).toBe("10.0.0.1");
    expect(resolveClientIp("10.0.0.1", " , ", 1)).toBe("10.0.0.1");
  });

  it("ipBucket - IPv4 as is, IPv6 by its /64, loopback and unknown exempt", () => {
    expect(ipBucket("203.0.113.7")).toBe("203.0.113.7");
    expect(ipBucket("2001:db8:1:2:3:4:5:6")).toBe("2001:db8:1:2::/64");
    expect(ipBucket("2001:db8:1:2::9")).toBe(ipBucket("2001:0db8:0001:0002:ffff::1"));
    expect(ipBucket("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(ipBucket("::1")).toBeNull();
    expect(ipBucket("127.0.0.53")).toBeNull();
    expect(ipBucket(undefined)).toBeNull();
    expect(isLoopback("128.0.0.1")).toBe(false);
  });

  it("isUntrustedProxy - loopback with a forwarding header and trustProxy 0 is a proxy in front, counted by the loopback address", () => {
    for (const name of ["x-forwarded-for", "forwarded", "x-real-ip"]) {
      expect(isUntrustedProxy("127.0.0.1", { [name]: "203.0.113.7" }, 0)).toBe(true);
      expect(isUntrustedProxy("::1", { [name]: "203.0.113.7" }, 0)).toBe(true);
      expect(isUntrustedProxy("127.0.0.1", { [name]: "203.0.113.7" }, 1)).toBe(false);
      expect(isUntrustedProxy("203.0.113.9", { [name]: "203.0.113.7" }, 0)).toBe(false);
    }
    expect(isUntrustedProxy("127.0.0.1", { "user-agent": "curl" }, 0)).toBe(false);
    expect(isUntrustedProxy(undefined, { "x-forwarded-for": "203.0.113.7" }, 0)).toBe(false);
    expect(ipBucket("127.0.0.1", true)).toBe("127.0.0.1");
    expect(ipBucket("::1", true)).toBe("::1");
    expect(ipBucket("127.0.0.1", false)).toBeNull();
  });
});
