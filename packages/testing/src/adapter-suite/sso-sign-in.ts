// Enterprise sign-in through each adapter (part of the SCIM area, which sets the plugin up): a
// SAML connection added through its route, the test identity provider's form posted to the ACS
// (urlencoded, from another site), the finish in the browser that started it; an OpenID Connect
// connection to the real test provider, its callback in that browser. Both land signed in, as a
// member of the organization, on every adapter and store the area runs on.
import { expect } from "vitest";
import { startTestOidcProvider, TEST_ACCOUNT_HEADER } from "../oidc-test-provider.js";
import { fetchSamlPostedForm, startTestSamlIdp, type TestSamlIdp } from "../saml-test-idp.js";
import { APP_ORIGIN, PASSWORD } from "./fixture.js";
import { roleOf, type ScimApp } from "./scim-fixture.js";

/** A browser's cookie jar per origin, and its requests: URLs on the app's origin go to the test server. */
function browser(app: ScimApp, account = "") {
  const jars = new Map<string, Map<string, string>>();
  const cookieOf = (origin: string) =>
    [...(jars.get(origin) ?? [])].map(([name, value]) => `${name}=${value}`).join("; ");
  return {
    /** `url` fetched without following a redirect; its `Set-Cookie` kept in its origin's jar. */
    async visit(
      url: string,
      init: { method?: string; form?: URLSearchParams; json?: unknown; from?: string } = {},
    ) {
      const { origin } = new URL(url);
      const target = origin === APP_ORIGIN ? url.replace(APP_ORIGIN, app.server.baseUrl) : url;
      const headers: Record<string, string> = { cookie: cookieOf(origin), [TEST_ACCOUNT_HEADER]: account };
      if (init.from) headers.origin = init.from;
      if (init.form) headers["content-type"] = "application/x-www-form-urlencoded";
      if (init.json !== undefined) headers["content-type"] = "application/json";
      const response = await fetch(target, {
        method: init.method ?? "GET",
        redirect: "manual",
        headers,
        body: init.form?.toString() ?? (init.json === undefined ? undefined : JSON.stringify(init.json)),
      });
      const jar = jars.get(origin) ?? new Map<string, string>();
      jars.set(origin, jar);
      for (const line of response.headers.getSetCookie()) {
        const [pair = ""] = line.split(";");
        const [name = "", value = ""] = [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)];
        if (value === "") jar.delete(name);
        else jar.set(name, value);
      }
      return response;
    },
    /** Where a redirect sends the browser, absolute. */
    next: (response: Response, from: string) => new URL(response.headers.get("location") ?? "", from).href,
  };
}

/** A connection of Acme added through its route by the owner (with a step-up), for `domain` claimed and verified here. */
async function addConnection(app: ScimApp, domain: string, body: Record<string, unknown>) {
  const now = app.auth.clock.now();
  const { organizationId } = app;
  await app.stores.sso.claimSsoDomain({
    organizationId,
    domain,
    verificationToken: "t",
    verifiedAt: null,
    createdAt: now,
  });
  await app.stores.sso.verifySsoDomain(organizationId, domain, now);
  const stepUp = await app.auth.stepUp({ principal: app.owner.principal }, { password: PASSWORD });
  const created = await app.call(
    "SSO add a connection",
    "POST",
    `/api/auth/organizations/${organizationId}/sso/connections`,
    {
      bearer: app.owner.accessToken,
      headers: { origin: APP_ORIGIN, "x-step-up-token": stepUp.twoFactorRequired ? "" : stepUp.stepUpToken },
      body: { ...body, domains: [domain] },
      record: false,
    },
  );
  expect(created.status, created.text).toBe(201);
  return created.body.connection as { id: string; serviceProvider: { entityId: string; acsUrl: string } };
}

/** Where the browser landed on the app, and whether its cookies sign in `email` there. */
async function landedSignedIn(
  app: ScimApp,
  session: ReturnType<typeof browser>,
  landing: Response,
  email: string,
) {
  const location = new URL(landing.headers.get("location") ?? "", APP_ORIGIN);
  expect(location.origin).toBe(APP_ORIGIN);
  expect(location.searchParams.get("error")).toBeNull();
  const me = await session.visit(`${APP_ORIGIN}/api/auth/me`);
  expect(me.status).toBe(200);
  expect(((await me.json()) as { email: string }).email).toBe(email);
  expect(await roleOf(app, email)).toBe("member");
}

/**
 * The SAML identity provider of one run of the area (`runScimAdapterSuite`'s describe), shared
 * by its tests: `start()` in `beforeAll` (not awaited there, so its key pairs and child process
 * come up while the SCIM tests run), `get()` in a test, `close()` in `afterAll`. Each test
 * registers its own app's connection at it (`register`) and names its own user in the request,
 * so the tests stay independent of each other and of their order.
 */
export function sharedSamlIdp() {
  let started: Promise<TestSamlIdp> | undefined;
  return {
    start() {
      started = startTestSamlIdp({ entityId: "urn:placeholder", acsUrl: "http://127.0.0.1/placeholder" });
      // A failed start is the failure of the test that uses it (`get`), not an unhandled rejection.
      started.catch(() => undefined);
    },
    get(): Promise<TestSamlIdp> {
      if (!started) throw new Error("the SAML identity provider was not started (beforeAll)");
      return started;
    },
    async close() {
      const idp = await started?.catch(() => undefined);
      await idp?.close();
    },
  };
}

/** What a sign-in test of the area receives: the app's boot, and the run's SAML identity provider. */
export interface SsoSignInContext {
  boot: () => Promise<ScimApp>;
  samlIdp: () => Promise<TestSamlIdp>;
}

/** The sign-in tests of the SCIM area (its boot sets `createSso` up with `allowPrivateNetworks`). */
export const ssoSignInTests: Record<string, (context: SsoSignInContext) => Promise<void>> = {
  "POST /sso/saml/:connectionId/acs - a SAML sign-in: the IdP's form posted from its site, the finish in the starting browser, a member":
    async ({ boot, samlIdp }) => {
      const [app, idp] = await Promise.all([boot(), samlIdp()]);
      const connection = await addConnection(app, "saml.acme.test", {
        type: "saml",
        metadataXml: await (await fetch(idp.metadataUrl)).text(),
      });
      await idp.register(connection.serviceProvider);
      // The identity provider signs with the real time: the app's clock is put there.
      app.clock.set(Math.max(Date.now(), app.clock.now()));
      const session = browser(app);
      const email = "ann@saml.acme.test";
      const started = await session.visit(`${APP_ORIGIN}/api/auth/sso/start`, {
        method: "POST",
        from: APP_ORIGIN,
        json: { email },
      });
      expect(started.status).toBe(200);
      const form = await fetchSamlPostedForm(((await started.json()) as { url: string }).url, {
        user: email,
      });
      const acs = await session.visit(form.action, {
        method: "POST",
        from: new URL(idp.ssoUrl).origin,
        form: new URLSearchParams({ SAMLResponse: form.samlResponse, RelayState: form.relayState }),
      });
      expect([acs.status, acs.headers.get("location")]).toEqual([
        303,
        expect.stringMatching(/\/sso\/finish\?token=/),
      ]);
      const finish = session.next(acs, form.action);
      await landedSignedIn(app, session, await session.visit(finish), email);
    },

  "GET /sso/oidc/callback - an OpenID Connect sign-in at the organization's provider: the callback in the starting browser, a member":
    async ({ boot }) => {
      const app = await boot();
      const client = { clientId: "acme-app", clientSecret: "acme-app-client-secret-0123456789abcdef" };
      const provider = await startTestOidcProvider({
        client: { ...client, redirectUris: [`${APP_ORIGIN}/api/auth/sso/oidc/callback`] },
      });
      try {
        await addConnection(app, "oidc.acme.test", { type: "oidc", issuer: provider.issuer, ...client });
        const email = "bo@oidc.acme.test";
        provider.setAccount("bo", { email, emailVerified: true, name: "Bo" });
        const session = browser(app, "bo");
        const started = await session.visit(`${APP_ORIGIN}/api/auth/sso/start`, {
          method: "POST",
          from: APP_ORIGIN,
          json: { email },
        });
        expect(started.status).toBe(200);
        let url = ((await started.json()) as { url: string }).url;
        let response = await session.visit(url);
        // The provider's own redirects (its interaction, then back to our callback).
        for (let hop = 0; hop < 10 && !url.startsWith(`${APP_ORIGIN}/api/auth/sso/oidc/callback`); hop++) {
          url = session.next(response, url);
          response = await session.visit(url);
        }
        expect(url.startsWith(`${APP_ORIGIN}/api/auth/sso/oidc/callback?`)).toBe(true);
        await landedSignedIn(app, session, response, email);
      } finally {
        await provider.close();
      }
    },
};
