import { describe, expect, it } from "vitest";
import type { ResolvedAuthOptions } from "../options/options.js";
import { createCookies, DEVICE_COOKIE_MAX_AGE_SECONDS } from "./cookies.js";

const options = (cookies: Partial<ResolvedAuthOptions["cookies"]> = {}) =>
  ({
    basePath: "/api/auth",
    cookies: { secure: false, sameSite: "strict", hostPrefix: false, ...cookies },
  }) as ResolvedAuthOptions;

describe("cookies", () => {
  it("set - HttpOnly, SameSite=Strict, Path and Max-Age as docs/http-api.md says", () => {
    const cookies = createCookies(options());
    expect(cookies.set("access", "t", 900)).toBe(
      "access_token=t; Max-Age=900; Path=/; HttpOnly; SameSite=Strict",
    );
    expect(cookies.set("refresh", "r", 60)).toBe(
      "refresh_token=r; Max-Age=60; Path=/api/auth; HttpOnly; SameSite=Strict",
    );
    expect(cookies.clear("twoFactor")).toBe(
      "two_factor_authentication_token=; Max-Age=0; Path=/; HttpOnly; SameSite=Strict",
    );
  });

  it("set - with hostPrefix: __Host- on Path=/ cookies, __Secure- on prefix-scoped ones, always Secure", () => {
    const cookies = createCookies(options({ secure: true, hostPrefix: true, sameSite: "lax" }));
    expect(cookies.set("access", "t", 1)).toBe(
      "__Host-access_token=t; Max-Age=1; Path=/; HttpOnly; Secure; SameSite=Lax",
    );
    expect(cookies.set("stepUp", "s", 1)).toBe(
      "__Secure-step_up_token=s; Max-Age=1; Path=/api/auth; HttpOnly; Secure; SameSite=Lax",
    );
  });

  it("set - the device cookie: the mount prefix, one year, SameSite=Lax at most (an identity provider's callback reads it)", () => {
    expect(DEVICE_COOKIE_MAX_AGE_SECONDS).toBe(365 * 24 * 3600);
    expect(createCookies(options()).set("device", "d", DEVICE_COOKIE_MAX_AGE_SECONDS)).toBe(
      "device_token=d; Max-Age=31536000; Path=/api/auth; HttpOnly; SameSite=Lax",
    );
    expect(createCookies(options({ sameSite: "none", secure: true })).set("device", "d", 1)).toBe(
      "device_token=d; Max-Age=1; Path=/api/auth; HttpOnly; Secure; SameSite=None",
    );
    expect(createCookies(options({ secure: true, hostPrefix: true })).names.device).toBe(
      "__Secure-device_token",
    );
  });

  it("parse - reads a Cookie header and tolerates garbage", () => {
    const cookies = createCookies(options());
    expect(cookies.parse("access_token=a; other=%zz")).toMatchObject({ access_token: "a" });
    expect(cookies.parse(undefined)).toEqual({});
    expect(cookies.parse("x".repeat(20_000))).toEqual({});
  });
});
