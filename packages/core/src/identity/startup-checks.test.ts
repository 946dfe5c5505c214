import { createMemoryStores } from "@portcullis/store-memory";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { AuthOptionFields } from "../options/options.js";

/** Whether openid-client (a dev dependency here) counts as installed for `createAuth`'s check. */
const openIdClient = vi.hoisted(() => ({ installed: true }));
vi.mock("./relying-party.js", async (importOriginal) => {
  const original = await importOriginal<typeof import("./relying-party.js")>();
  const missing = (specifier: string): string => {
    throw Object.assign(new Error(`Cannot find package '${specifier}'`), { code: "ERR_MODULE_NOT_FOUND" });
  };
  return {
    ...original,
    assertOpenIdClientInstalled: () =>
      original.assertOpenIdClientInstalled(openIdClient.installed ? undefined : missing),
  };
});
// Loaded anew, so that it takes the mock above also where test files share modules (--no-isolate).
vi.resetModules();
const { createAuth } = await import("../create-auth/create-auth.js");

const github = { type: "github", clientId: "gh-client", clientSecret: "gh-secret" } as const;
const build = (overrides: Omit<Partial<AuthOptionFields>, "email">) =>
  createAuth({
    secret: "identity-secret-3lVdCqu77JD7JgYKTHdBAvgURetzgT5GBGjptnfroYU",
    stores: createMemoryStores({ sweepIntervalMs: 0 }),
    email: { enabled: false },
    appOrigin: "https://app.example.test",
    ...overrides,
  });

afterEach(() => {
  openIdClient.installed = true;
});

describe("identity providers at start-up", () => {
  it("assertOpenIdClientInstalled - finds openid-client where it is installed, throws naming it where not", async () => {
    const { assertOpenIdClientInstalled } =
      await vi.importActual<typeof import("./relying-party.js")>("./relying-party.js");
    expect(() => assertOpenIdClientInstalled()).not.toThrow();
    expect(() =>
      assertOpenIdClientInstalled((specifier) => import.meta.resolve(`${specifier}-not-installed`)),
    ).toThrow(/npm install openid-client/);
  });

  it("createAuth - providers without openid-client installed: throws naming the option and the package to install", () => {
    openIdClient.installed = false;
    expect(() => build({ identityProviders: [github] })).toThrow(TypeError);
    expect(() => build({ identityProviders: [github] })).toThrow(
      /"identityProviders" needs the openid-client package.*npm install openid-client/,
    );
    // Without providers the package is not needed.
    expect(build({}).identityProviders.list()).toEqual([]);
    openIdClient.installed = true;
    expect(build({ identityProviders: [github] }).identityProviders.list()).toEqual([
      { name: "github", displayName: "GitHub" },
    ]);
  });

  it("createAuth - an issuer that cannot work is refused, naming it: not a URL, the discovery document, credentials, plain http", () => {
    const oidc = (issuer: string, extra: object = {}) =>
      build({ identityProviders: [{ type: "oidc", issuer, clientId: "a", clientSecret: "b", ...extra }] });
    expect(() => oidc("idp.example.com")).toThrow(/"identityProviders.0.issuer" must be an http\(s\) URL/);
    expect(() => oidc("https://idp.example.com/.well-known/openid-configuration")).toThrow(
      /"identityProviders.0.issuer" must be the issuer, not its discovery document/,
    );
    expect(() => oidc("https://user:pass@idp.example.com")).toThrow(/"identityProviders.0.issuer" must be/);
    expect(() => oidc("http://idp.example.com")).toThrow(/"identityProviders.0.issuer" must be https/);
    expect(oidc("http://127.0.0.1:8080/realms/dev", { allowInsecureRequests: true })).toBeDefined();
    expect(oidc("https://idp.example.com/realms/acme").identityProviders.list()).toEqual([
      expect.objectContaining({ name: "oidc" }),
    ]);
  });
});
