import { describe, expect, it } from "vitest";
import { ConfigError, readConfig } from "./config.js";
import { uiConfigPage } from "./pages.js";

const quiet = () => undefined;
const base = { AUTH_SECRET: "x".repeat(48) };

describe("readConfig", () => {
  it("readConfig - no CAPTCHA_PROVIDER: no CAPTCHA", () => {
    expect(readConfig(base, quiet).captcha).toBeUndefined();
  });

  it("readConfig - CAPTCHA_PROVIDER with its secret, site key and siteverify override", () => {
    const config = readConfig(
      {
        ...base,
        CAPTCHA_PROVIDER: "hcaptcha",
        CAPTCHA_SECRET: "0xsecret",
        CAPTCHA_SITE_KEY: "site-key",
        CAPTCHA_VERIFY_URL: "http://127.0.0.1:9999/siteverify",
      },
      quiet,
    );
    expect(config.captcha).toEqual({
      provider: "hcaptcha",
      secret: "0xsecret",
      siteKey: "site-key",
      verifyUrl: "http://127.0.0.1:9999/siteverify",
    });
  });

  it("readConfig - an unknown provider, a provider without its secret, a bad URL or settings without a provider stop the server", () => {
    const refused = [
      { CAPTCHA_PROVIDER: "friendlycaptcha", CAPTCHA_SECRET: "s" },
      { CAPTCHA_PROVIDER: "turnstile" },
      { CAPTCHA_PROVIDER: "turnstile", CAPTCHA_SECRET: "s", CAPTCHA_VERIFY_URL: "ftp://x" },
      { CAPTCHA_SECRET: "s" },
      { CAPTCHA_SITE_KEY: "k" },
    ];
    for (const env of refused) expect(() => readConfig({ ...base, ...env }, quiet)).toThrow(ConfigError);
  });

  it("uiConfigPage - names the provider and site key for the widget, never the secret; null without a site key", () => {
    const env = { ...base, CAPTCHA_PROVIDER: "turnstile", CAPTCHA_SECRET: "0xsecret" };
    const withKey = uiConfigPage(
      readConfig({ ...env, CAPTCHA_SITE_KEY: "1x00000000000000000000AA" }, quiet).captcha,
    );
    expect(JSON.parse(withKey.body)).toEqual({
      captcha: { provider: "turnstile", siteKey: "1x00000000000000000000AA" },
    });
    expect(withKey.body).not.toContain("0xsecret");
    expect(JSON.parse(uiConfigPage(readConfig(env, quiet).captcha).body)).toEqual({ captcha: null });
    expect(JSON.parse(uiConfigPage(undefined).body)).toEqual({ captcha: null });
  });
});
