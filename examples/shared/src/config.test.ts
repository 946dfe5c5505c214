import { describe, expect, it, vi } from "vitest";
import { ConfigError, readConfig, readOAuthProviderFlag, readSsoFlag } from "./config.js";
import { uiConfigPage } from "./pages.js";

describe("readConfig", () => {
  it("readConfig - defaults follow docs/examples.md and generate a secret with a warning", () => {
    const warn = vi.fn();
    const config = readConfig({}, warn);
    expect(config).toMatchObject({
      port: 3000,
      host: "127.0.0.1",
      appOrigin: "http://localhost:3000",
      passkeys: { rpId: "localhost", origin: "http://localhost:3000" },
      emailEnabled: true,
      emailCooldownSeconds: 60,
      accessTokenTtlSeconds: 900,
      refreshReuseSeconds: 10,
      loginAlerts: true,
      allowHeaderAuth: true,
      preferHeaderAuth: true,
      cookieSecure: false,
      devOutbox: true,
      emailSignIn: true,
    });
    expect(Buffer.from(config.secret, "base64url")).toHaveLength(48);
    expect(warn).toHaveBeenCalledOnce();
  });

  it("readConfig - APP_ORIGIN defaults to the port, flags and numbers are parsed", () => {
    const config = readConfig(
      {
        PORT: "4000",
        EMAIL_ENABLED: "false",
        EMAIL_COOLDOWN_SECONDS: "5",
        COOKIE_SECURE: "1",
        AUTH_SECRET: "x",
        TRUST_PROXY: "1",
        REFRESH_REUSE_SECONDS: "0",
      },
      () => {},
    );
    expect(config).toMatchObject({ appOrigin: "http://localhost:4000", emailEnabled: false, trustProxy: 1 });
    expect(readConfig({ AUTH_SECRET: "x", EMAIL_SIGN_IN: "false" }, () => {}).emailSignIn).toBe(false);
    expect(readConfig({ AUTH_SECRET: "x", HOST: "0.0.0.0" }, () => {}).appOrigin).toBe(
      "http://localhost:3000",
    );
    expect(readConfig({ AUTH_SECRET: "x", HOST: "::1", PORT: "8080" }, () => {}).appOrigin).toBe(
      "http://localhost:8080",
    );
    expect(readConfig({ AUTH_SECRET: "x", HOST: "127.0.0.2" }, () => {}).appOrigin).toBe(
      "http://localhost:3000",
    );
    expect(readConfig({ AUTH_SECRET: "x", HOST: "fd00::5", PORT: "8080" }, () => {}).appOrigin).toBe(
      "http://[fd00::5]:8080",
    );
    expect(() => readConfig({ AUTH_SECRET: "x", TRUST_PROXY: "yes" }, () => {})).toThrow(ConfigError);
    expect(config).toMatchObject({ emailCooldownSeconds: 5, cookieSecure: true, secret: "x" });
    expect(config.refreshReuseSeconds).toBe(0);
    expect(() => readConfig({ AUTH_SECRET: "x", REFRESH_REUSE_SECONDS: "301" }, () => {})).toThrow(
      /REFRESH_REUSE_SECONDS/,
    );
  });

  it("readConfig - SESSION_IDLE_SECONDS and SESSION_MAX_SECONDS: unset keeps the library's defaults, set passes them", () => {
    expect(readConfig({ AUTH_SECRET: "x" }, () => {})).toMatchObject({
      sessionIdleSeconds: undefined,
      sessionMaxSeconds: undefined,
    });
    expect(
      readConfig({ AUTH_SECRET: "x", SESSION_IDLE_SECONDS: "3600", SESSION_MAX_SECONDS: "86400" }, () => {}),
    ).toMatchObject({ sessionIdleSeconds: 3600, sessionMaxSeconds: 86_400 });
    expect(readConfig({ AUTH_SECRET: "x", SESSION_IDLE_SECONDS: "60" }, () => {}).sessionIdleSeconds).toBe(
      60,
    );
    expect(() => readConfig({ AUTH_SECRET: "x", SESSION_IDLE_SECONDS: "0" }, () => {})).toThrow(
      /SESSION_IDLE_SECONDS/,
    );
    expect(() => readConfig({ AUTH_SECRET: "x", SESSION_MAX_SECONDS: "34560001" }, () => {})).toThrow(
      /SESSION_MAX_SECONDS/,
    );
    expect(() =>
      readConfig({ AUTH_SECRET: "x", SESSION_IDLE_SECONDS: "7200", SESSION_MAX_SECONDS: "3600" }, () => {}),
    ).toThrow(/must not exceed SESSION_MAX_SECONDS/);
    // The library's 7-day idle default would outlast a one-day lifetime: the message says to set both.
    expect(() => readConfig({ AUTH_SECRET: "x", SESSION_MAX_SECONDS: "86400" }, () => {})).toThrow(
      /set both/,
    );
  });

  it("readConfig - production refuses to start without AUTH_SECRET and has no dev outbox", () => {
    expect(() => readConfig({ NODE_ENV: "production" })).toThrow(ConfigError);
    const config = readConfig({ NODE_ENV: "production", AUTH_SECRET: "s".repeat(48) });
    expect(config.devOutbox).toBe(false);
  });

  it("readConfig - SMTP_URL turns the dev outbox off", () => {
    expect(readConfig({ SMTP_URL: "smtp://localhost:2525" }, () => {}).devOutbox).toBe(false);
  });

  it("readConfig - a malformed value names its variable", () => {
    expect(() => readConfig({ LOGIN_ALERTS: "maybe" }, () => {})).toThrow(/LOGIN_ALERTS/);
    expect(() => readConfig({ PORT: "http" }, () => {})).toThrow(/PORT/);
    expect(() => readConfig({ EMAIL_COOLDOWN_SECONDS: "-1" }, () => {})).toThrow(/EMAIL_COOLDOWN_SECONDS/);
  });

  it("readConfig - ACCESS_TOKEN_TTL_SECONDS sets the access token's lifetime, 1 to 86400 seconds", () => {
    expect(
      readConfig({ AUTH_SECRET: "x", ACCESS_TOKEN_TTL_SECONDS: "5" }, () => {}).accessTokenTtlSeconds,
    ).toBe(5);
    for (const bad of ["0", "86401", "1.5", "soon"])
      expect(() => readConfig({ AUTH_SECRET: "x", ACCESS_TOKEN_TTL_SECONDS: bad }, () => {})).toThrow(
        new ConfigError(`ACCESS_TOKEN_TTL_SECONDS must be a whole number from 1 to 86400, not "${bad}"`),
      );
  });

  it("readConfig - BREACHED_PASSWORDS_URL turns the breached-password check on; anything but an http(s) URL is refused", () => {
    expect(readConfig({ AUTH_SECRET: "x" }, () => {})).toMatchObject({
      breachedPasswordsUrl: undefined,
      breachedPasswordsFailClosed: false,
    });
    expect(
      readConfig(
        {
          AUTH_SECRET: "x",
          BREACHED_PASSWORDS_URL: " http://127.0.0.1:9000/range ",
          BREACHED_PASSWORDS_FAIL_CLOSED: "1",
        },
        () => {},
      ),
    ).toMatchObject({
      breachedPasswordsUrl: "http://127.0.0.1:9000/range",
      breachedPasswordsFailClosed: true,
    });
    expect(() => readConfig({ AUTH_SECRET: "x", BREACHED_PASSWORDS_URL: "range.test" }, () => {})).toThrow(
      /BREACHED_PASSWORDS_URL/,
    );
  });

  it("readConfig - ADMIN_EMAILS lists the back office's addresses, normalized; anything else is refused", () => {
    const config = readConfig(
      { AUTH_SECRET: "x".repeat(48), ADMIN_EMAILS: " Ops@Example.test, ops@example.test,b@x.test" },
      () => {},
    );
    expect(config.adminEmails).toEqual(["ops@example.test", "b@x.test"]);
    expect(readConfig({ AUTH_SECRET: "x".repeat(48) }, () => {}).adminEmails).toEqual([]);
    expect(() =>
      readConfig({ AUTH_SECRET: "x".repeat(48), ADMIN_EMAILS: "not an address" }, () => {}),
    ).toThrow(/ADMIN_EMAILS/);
  });

  it("readConfig - ORGANIZATIONS: on by default with the project permissions; lists are checked; members get only declared ones", () => {
    const secret = { AUTH_SECRET: "x".repeat(48) };
    expect(readConfig(secret, () => {}).organizations).toEqual({
      permissions: ["project:read", "project:write", "project:delete"],
      memberPermissions: ["project:read"],
    });
    expect(readConfig({ ...secret, ORGANIZATIONS: "false" }, () => {}).organizations).toBeUndefined();
    expect(
      readConfig(
        {
          ...secret,
          ORGANIZATION_PERMISSIONS: " doc:read, doc:write,doc:read",
          ORGANIZATION_MEMBER_PERMISSIONS: "doc:read",
        },
        () => {},
      ).organizations,
    ).toEqual({ permissions: ["doc:read", "doc:write"], memberPermissions: ["doc:read"] });
    expect(() => readConfig({ ...secret, ORGANIZATION_PERMISSIONS: "Read Things" }, () => {})).toThrow(
      /ORGANIZATION_PERMISSIONS/,
    );
    expect(() =>
      readConfig({ ...secret, ORGANIZATION_MEMBER_PERMISSIONS: "project:admin" }, () => {}),
    ).toThrow(/ORGANIZATION_MEMBER_PERMISSIONS.*project:admin/);
    expect(() => readConfig({ ...secret, ORGANIZATIONS: "maybe" }, () => {})).toThrow(/ORGANIZATIONS/);
  });

  it("readConfig - API_KEYS: on by default, off with false, anything else refused", () => {
    const secret = { AUTH_SECRET: "x".repeat(48) };
    expect(readConfig(secret, () => {}).apiKeys).toBe(true);
    expect(readConfig({ ...secret, API_KEYS: "false" }, () => {}).apiKeys).toBe(false);
    expect(readConfig({ ...secret, API_KEYS: "true" }, () => {}).apiKeys).toBe(true);
    expect(() => readConfig({ ...secret, API_KEYS: "maybe" }, () => {})).toThrow(/API_KEYS/);
  });

  it("readConfig - WEBHOOKS: on by default with public addresses only and the normal back-off; WEBHOOKS_ALLOW_PRIVATE and WEBHOOK_RETRY_SCALE are read; bad values are refused by name", () => {
    const secret = { AUTH_SECRET: "x".repeat(48) };
    expect(readConfig(secret, () => {}).webhooks).toEqual({ allowPrivateNetworks: false, retryScale: 1 });
    expect(readConfig({ ...secret, WEBHOOKS: "false" }, () => {}).webhooks).toBeUndefined();
    expect(
      readConfig({ ...secret, WEBHOOKS_ALLOW_PRIVATE: "true", WEBHOOK_RETRY_SCALE: " 0.001 " }, () => {})
        .webhooks,
    ).toEqual({ allowPrivateNetworks: true, retryScale: 0.001 });
    expect(readConfig({ ...secret, WEBHOOK_RETRY_SCALE: "2.5" }, () => {}).webhooks?.retryScale).toBe(2.5);
    expect(readConfig({ ...secret, WEBHOOK_RETRY_SCALE: "1e-6" }, () => {}).webhooks?.retryScale).toBe(1e-6);
    for (const bad of ["0", "-1", "fast", "Infinity", "1001", "0.0000001"])
      expect(() => readConfig({ ...secret, WEBHOOK_RETRY_SCALE: bad }, () => {}), bad).toThrow(
        new ConfigError(
          `WEBHOOK_RETRY_SCALE must be a positive number from 0.000001 to 1000 (1: the normal retry waits, 0.001: a thousand times shorter), not "${bad}"`,
        ),
      );
    // Checked while webhooks are off too: a typo shows at once, not on the day they are turned on.
    expect(() => readConfig({ ...secret, WEBHOOKS: "false", WEBHOOK_RETRY_SCALE: "0" }, () => {})).toThrow(
      /WEBHOOK_RETRY_SCALE/,
    );
    expect(() => readConfig({ ...secret, WEBHOOKS: "maybe" }, () => {})).toThrow(/WEBHOOKS must be true/);
    expect(() => readConfig({ ...secret, WEBHOOKS_ALLOW_PRIVATE: "sometimes" }, () => {})).toThrow(
      /WEBHOOKS_ALLOW_PRIVATE must be true or false/,
    );
  });

  it("readConfig - SSO: on by default while organizations are, off with them; SSO_ALLOW_PRIVATE is read, refused in production; SSO=true without organizations is refused by name", () => {
    const secret = { AUTH_SECRET: "x".repeat(48) };
    expect(readConfig(secret, () => {}).sso).toEqual({ allowPrivateNetworks: false });
    expect(readConfig({ ...secret, SSO: "false" }, () => {}).sso).toBeUndefined();
    expect(readConfig({ ...secret, ORGANIZATIONS: "false" }, () => {}).sso).toBeUndefined();
    expect(readConfig({ ...secret, SSO_ALLOW_PRIVATE: "true" }, () => {}).sso).toEqual({
      allowPrivateNetworks: true,
    });
    expect(() => readConfig({ ...secret, SSO: "true", ORGANIZATIONS: "false" }, () => {})).toThrow(
      new ConfigError("SSO=true needs organizations: every connection belongs to one (ORGANIZATIONS=false)"),
    );
    expect(() =>
      readConfig({ ...secret, NODE_ENV: "production", SSO_ALLOW_PRIVATE: "true" }, () => {}),
    ).toThrow(/SSO_ALLOW_PRIVATE=true is for development only/);
    // Checked while SSO is off too.
    expect(() => readConfig({ ...secret, SSO: "false", SSO_ALLOW_PRIVATE: "sometimes" }, () => {})).toThrow(
      /SSO_ALLOW_PRIVATE must be true or false/,
    );
    expect(() => readConfig({ ...secret, SSO: "maybe" }, () => {})).toThrow(/SSO must be true or false/);
    // The UI's /ui/config says whether the sign-in page offers SSO, from the same flags.
    expect([readSsoFlag({}), readSsoFlag({ ORGANIZATIONS: "false" }), readSsoFlag({ SSO: "off" })]).toEqual([
      true,
      false,
      false,
    ]);
    expect(JSON.parse(uiConfigPage(undefined, { oauthProvider: false, sso: true }).body)).toEqual({
      captcha: null,
      oauthProvider: false,
      sso: true,
    });
  });

  it("readConfig - OAUTH_PROVIDER: off by default; on with its clients file and dynamic registration (off unless asked); the two without the provider, or bad flags, are refused by name", () => {
    const secret = { AUTH_SECRET: "x".repeat(48) };
    expect(readConfig(secret, () => {}).oauthProvider).toBeUndefined();
    expect(readConfig({ ...secret, OAUTH_PROVIDER: "false" }, () => {}).oauthProvider).toBeUndefined();
    expect(readConfig({ ...secret, OAUTH_PROVIDER: "true" }, () => {}).oauthProvider).toEqual({
      clientsFile: undefined,
      allowDynamicRegistration: false,
    });
    expect(
      readConfig(
        {
          ...secret,
          OAUTH_PROVIDER: "1",
          OAUTH_CLIENTS_FILE: " /etc/app/clients.json ",
          OAUTH_DYNAMIC_REGISTRATION: "true",
        },
        () => {},
      ).oauthProvider,
    ).toEqual({ clientsFile: "/etc/app/clients.json", allowDynamicRegistration: true });
    // Asked for while the provider is off: refused, not silently ignored.
    for (const env of [{ OAUTH_CLIENTS_FILE: "clients.json" }, { OAUTH_DYNAMIC_REGISTRATION: "true" }])
      expect(() => readConfig({ ...secret, ...env }, () => {}), JSON.stringify(env)).toThrow(
        new ConfigError("OAUTH_CLIENTS_FILE and OAUTH_DYNAMIC_REGISTRATION need OAUTH_PROVIDER=true"),
      );
    expect(
      readConfig({ ...secret, OAUTH_DYNAMIC_REGISTRATION: "false" }, () => {}).oauthProvider,
    ).toBeUndefined();
    expect(() => readConfig({ ...secret, OAUTH_PROVIDER: "maybe" }, () => {})).toThrow(
      /OAUTH_PROVIDER must be true or false/,
    );
    expect(() =>
      readConfig({ ...secret, OAUTH_PROVIDER: "true", OAUTH_DYNAMIC_REGISTRATION: "sometimes" }, () => {}),
    ).toThrow(/OAUTH_DYNAMIC_REGISTRATION must be true or false/);
    // The UI's /ui/config says whether the provider is on, from the same flag.
    expect(readOAuthProviderFlag({})).toBe(false);
    expect(readOAuthProviderFlag({ OAUTH_PROVIDER: "on" })).toBe(true);
    expect(JSON.parse(uiConfigPage(undefined, { oauthProvider: true }).body)).toEqual({
      captcha: null,
      oauthProvider: true,
    });
  });

  it("readConfig - PASSKEYS: on for APP_ORIGIN's host; an IP address or plain http elsewhere turns them off with a warning, or stops the server when asked for", () => {
    const secret = { AUTH_SECRET: "x" };
    expect(readConfig({ ...secret, APP_ORIGIN: "https://app.example.com" }, () => {}).passkeys).toEqual({
      rpId: "app.example.com",
      origin: "https://app.example.com",
    });
    expect(readConfig({ ...secret, PASSKEYS: "false" }, () => {}).passkeys).toBeUndefined();
    for (const [origin, why] of [
      ["http://127.0.0.1:3000", /IP address/],
      ["http://10.0.0.5:3000", /IP address/],
      ["http://[::1]:3000", /IP address/],
      ["http://app.example.com", /not https/],
    ] as const) {
      const warn = vi.fn();
      expect(readConfig({ ...secret, APP_ORIGIN: origin }, warn).passkeys, origin).toBeUndefined();
      expect(warn, origin).toHaveBeenCalledWith(expect.stringMatching(/^Passkeys are off: /));
      expect(warn.mock.calls[0]?.[0], origin).toMatch(why);
      expect(() => readConfig({ ...secret, APP_ORIGIN: origin, PASSKEYS: "true" }, () => {}), origin).toThrow(
        ConfigError,
      );
    }
    // A HOST that is not loopback keeps its address in the default origin: passkeys off, said once.
    const warn = vi.fn();
    expect(readConfig({ ...secret, HOST: "192.168.1.20" }, warn)).toMatchObject({
      appOrigin: "http://192.168.1.20:3000",
      passkeys: undefined,
    });
    expect(warn).toHaveBeenCalledOnce();
    expect(() => readConfig({ ...secret, APP_ORIGIN: "not a url" }, () => {})).toThrow(/APP_ORIGIN/);
  });
});
