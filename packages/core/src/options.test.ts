import { describe, expect, it } from "vitest";
import { parseAuthOptions, STORE_METHODS } from "./options.js";

const fakePort = (methods: readonly string[]) => Object.fromEntries(methods.map((name) => [name, () => {}]));
const stores = {
  users: fakePort(STORE_METHODS.users),
  cooldowns: fakePort(STORE_METHODS.cooldowns),
  sessions: fakePort(STORE_METHODS.sessions),
} as never;
const valid = { secret: "x".repeat(32), stores, email: { enabled: false } };

describe("parseAuthOptions", () => {
  it("parseAuthOptions - fills in the documented defaults", () => {
    const options = parseAuthOptions(valid);
    expect(options).toMatchObject({
      basePath: "/api/auth",
      accessTokenTtlSeconds: 900,
      allowHeaderAuthentication: true,
      preferHeaderAuthentication: true,
      password: { minLength: 8, maxLength: 256 },
      email: { enabled: false, cooldownSeconds: 60, loginAlerts: true },
      cookies: { secure: false, sameSite: "strict", hostPrefix: false },
      bodyLimitBytes: 16384,
    });
  });

  it.each([
    [{ secret: "short" }, '"secret"'],
    [{ accessTokenTtlSeconds: -1 }, '"accessTokenTtlSeconds"'],
    [{ basePath: "api/" }, '"basePath"'],
    [{ email: { enabled: true } }, '"mailer"'],
    [{ email: { enabled: false, cooldownSeconds: "60" } }, '"email.cooldownSeconds"'],
    [{ cookies: { hostPrefix: true } }, '"cookies.hostPrefix"'],
    [{ cookies: { sameSite: "none" } }, '"cookies.sameSite"'],
    [{ appOrigin: "javascript:alert(1)" }, '"appOrigin"'],
    [{ stores: { ...(stores as object), users: {} } }, '"stores.users"'],
  ])("parseAuthOptions - a bad option throws naming it (%j)", (patch, name) => {
    expect(() => parseAuthOptions({ ...valid, ...patch } as never)).toThrow(name);
  });
});
