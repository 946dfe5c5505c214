import { startTestOidcProvider, type TestOidcProvider } from "@portcullis/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Jars, type SsoHost, startInBrowser, startSsoHost, visit } from "./test-sso-server.js";

const CLIENT = { clientId: "acme-portcullis", clientSecret: "acme-oidc-client-secret-0123456789abcdef" };
const DOMAIN = "oidc-corp.test";

let host: SsoHost;
let provider: TestOidcProvider;
let connection: { id: string; serviceProvider: { redirectUri: string } };

const connectionsPath = () => `/organizations/${host.organization.id}/sso/connections`;

/**
 * The browser's redirects from `url` until it lands on the app (outside `/api/`), stopping
 * before the callback when `stopAtCallback`: the URLs visited, the landing, and the jars.
 */
async function follow(url: string, jars: Jars, account: string, stopAtCallback = false) {
  const visited: string[] = [];
  let next = url;
  for (let hop = 0; hop < 20; hop++) {
    if (stopAtCallback && next.startsWith(connection.serviceProvider.redirectUri))
      return { visited, callback: next };
    visited.push(next);
    const response = await visit(next, jars, account);
    const location = new URL(response.headers.get("location") ?? "", next);
    if (location.origin === host.origin && !location.pathname.startsWith("/api/"))
      return { visited, landing: location };
    next = location.href;
  }
  throw new Error("too many redirects");
}

/** `POST /sso/start` for `email` (or a body) in a browser whose jars are `jars`: the provider's URL. */
const start = (email: string | Record<string, unknown>, jars: Jars) =>
  startInBrowser(host, typeof email === "string" ? { email } : email, jars);

/** A whole sign-in of `email` (an account at the provider of that address): where the browser lands, and its jars. */
async function signIn(email: string) {
  const account = `acct-${email}`;
  provider.setAccount(account, { email, emailVerified: true, name: `Name of ${email}` });
  const jars: Jars = new Map();
  const { landing } = await follow(await start(email, jars), jars, account);
  return { landing: landing as URL, jars };
}

/** The session the jars hold at the app: `GET /me`'s status and body. */
async function me(jars: Jars) {
  const jar = jars.get(host.origin) ?? new Map<string, string>();
  const response = await fetch(`${host.api}/me`, {
    headers: { cookie: [...jar].map(([name, value]) => `${name}=${value}`).join("; ") },
  });
  return { status: response.status, body: (await response.json()) as { email?: string } };
}

beforeAll(async () => {
  host = await startSsoHost({ allowPrivateNetworks: true });
  provider = await startTestOidcProvider({
    client: { ...CLIENT, redirectUris: [`${host.api}/sso/oidc/callback`] },
  });
  const claimed = await host.call("POST", `/organizations/${host.organization.id}/domains`, {
    domain: DOMAIN,
  });
  const { record } = ((await claimed.json()) as { domain: { record: { name: string; value: string } } })
    .domain;
  host.txt.set(record.name, [[record.value]]);
  expect(
    (await host.call("POST", `/organizations/${host.organization.id}/domains/${DOMAIN}/verify`)).status,
  ).toBe(200);
  const created = await host.call("POST", connectionsPath(), {
    type: "oidc",
    issuer: provider.issuer,
    ...CLIENT,
    domains: [DOMAIN],
  });
  expect(created.status).toBe(201);
  connection = ((await created.json()) as { connection: typeof connection }).connection;
}, 60_000);

afterAll(async () => {
  await provider?.close();
  await host?.close();
});

describe("OpenID Connect connections per organization", () => {
  it("create - answers the issuer and client id and the redirect URI to register, never the secret; the store keeps it sealed", async () => {
    const listed = await host.call("GET", connectionsPath());
    const text = await listed.text();
    expect(text).not.toContain(CLIENT.clientSecret);
    const [view] = (JSON.parse(text) as { items: Record<string, unknown>[] }).items;
    expect(view).toMatchObject({
      type: "oidc",
      saml: null,
      oidc: { issuer: provider.issuer, clientId: CLIENT.clientId },
      serviceProvider: { redirectUri: `${host.api}/sso/oidc/callback` },
    });
    const stored = await host.stores.sso.findSsoConnection(connection.id);
    expect(stored?.oidc?.sealedClientSecret).toMatch(/^v1\./);
    expect(JSON.stringify(stored)).not.toContain(CLIENT.clientSecret);
  });

  it("sign-in - through the organization's provider: a new account, verified, a member with the default role; again: the same account", async () => {
    const first = await signIn(`jo@${DOMAIN}`);
    expect(first.landing.pathname).toBe("/");
    expect(first.landing.searchParams.get("error")).toBeNull();
    const session = await me(first.jars);
    expect(session).toMatchObject({ status: 200, body: { email: `jo@${DOMAIN}` } });
    const user = await host.stores.users.findByEmail(`jo@${DOMAIN}`);
    expect(user?.emailVerified).toBe(true);
    const member = await host.stores.organizations.findMembership(host.organization.id, user?.id ?? "");
    expect(member?.membership.role).toBe("member");
    const again = await signIn(`jo@${DOMAIN}`);
    expect(again.landing.searchParams.get("error")).toBeNull();
    expect((await host.stores.users.findByEmail(`jo@${DOMAIN}`))?.id).toBe(user?.id);
  });

  it("start by the organization's slug - answers the provider's authorization URL with PKCE S256, a nonce and our state", async () => {
    const started = await host.start({ organization: host.organization.slug });
    expect(started.status).toBe(200);
    const url = new URL(((await started.json()) as { url: string }).url);
    expect(url.origin).toBe(provider.issuer);
    expect(url.searchParams.get("redirect_uri")).toBe(`${host.api}/sso/oidc/callback`);
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(url.searchParams.get("nonce")).toMatch(/^[\w-]{20,}$/);
    expect(url.searchParams.get("state")).toMatch(/^[\w-]{43}$/);
  });

  it("callback - used once: the same code and state again, or 10 at once, sign in once", async () => {
    const email = `twice@${DOMAIN}`;
    provider.setAccount("acct-twice", { email, emailVerified: true });
    const jars: Jars = new Map();
    const { callback } = await follow(await start(email, jars), jars, "acct-twice", true);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => visit(callback as string, new Map(jars), "acct-twice")),
    );
    const signedIn = answers.filter((answer) =>
      answer.headers.getSetCookie().some((line) => /access|refresh/i.test(line) && !/=;/.test(line)),
    );
    expect(signedIn).toHaveLength(1);
    const refused = answers.filter((answer) => (answer.headers.get("location") ?? "").includes("error="));
    expect(refused).toHaveLength(9);
    for (const answer of refused)
      expect(new URL(answer.headers.get("location") ?? "").searchParams.get("error")).toBe(
        "SSO_ASSERTION_INVALID",
      );
  });

  it("callback - in another browser (without the binding cookie): refused, and the request is used up", async () => {
    const email = `other-browser@${DOMAIN}`;
    provider.setAccount("acct-other", { email, emailVerified: true });
    const jars: Jars = new Map();
    const { callback } = await follow(await start(email, jars), jars, "acct-other", true);
    const elsewhere = await visit(callback as string, new Map(), "acct-other");
    expect(new URL(elsewhere.headers.get("location") ?? "").searchParams.get("error")).toBe(
      "SSO_ASSERTION_INVALID",
    );
    const then = await visit(callback as string, jars, "acct-other");
    expect(new URL(then.headers.get("location") ?? "").searchParams.get("error")).toBe(
      "SSO_ASSERTION_INVALID",
    );
    expect(await host.stores.users.findByEmail(email)).toBeNull();
  });

  it("an address of a domain the organization has not verified: SSO_DOMAIN_NOT_VERIFIED, no account", async () => {
    const email = "someone@elsewhere.test";
    provider.setAccount("acct-elsewhere", { email, emailVerified: true });
    const jars: Jars = new Map();
    // Started through the organization (the address's domain routes nowhere); the provider answers another domain.
    const url = await start({ organization: host.organization.slug }, jars);
    const { landing } = await follow(url, jars, "acct-elsewhere");
    expect(landing?.searchParams.get("error")).toBe("SSO_DOMAIN_NOT_VERIFIED");
    expect(await host.stores.users.findByEmail(email)).toBeNull();
  });

  it("a connection whose client secret the provider does not know: IDENTITY_PROVIDER_REJECTED at the callback, no account", async () => {
    const domain = "wrong-secret.test";
    const claimed = await host.call("POST", `/organizations/${host.organization.id}/domains`, { domain });
    const { record } = ((await claimed.json()) as { domain: { record: { name: string; value: string } } })
      .domain;
    host.txt.set(record.name, [[record.value]]);
    await host.call("POST", `/organizations/${host.organization.id}/domains/${domain}/verify`);
    const made = await host.call("POST", connectionsPath(), {
      type: "oidc",
      issuer: provider.issuer,
      clientId: CLIENT.clientId,
      clientSecret: "not-the-secret-the-provider-has-000000000",
      domains: [domain],
    });
    expect(made.status).toBe(201);
    const { landing, jars } = await signIn(`kim@${domain}`);
    expect(landing.searchParams.get("error")).toBe("IDENTITY_PROVIDER_REJECTED");
    expect((await me(jars)).status).toBe(401);
    expect(await host.stores.users.findByEmail(`kim@${domain}`)).toBeNull();
  });

  it("create - refusals: an unknown type, no secret, a discovery URL, an issuer that does not answer", async () => {
    const refusal = async (body: Record<string, unknown>) => {
      const response = await host.call("POST", connectionsPath(), body);
      const answer = (await response.json()) as {
        code: string;
        errors?: { path: string; message: string }[];
      };
      return { status: response.status, code: answer.code, detail: answer.errors?.[0] };
    };
    expect(await refusal({ type: "ldap" })).toMatchObject({ status: 400, detail: { path: "type" } });
    expect(await refusal({ type: "oidc", issuer: provider.issuer, clientId: "x" })).toMatchObject({
      status: 400,
      detail: { path: "clientSecret" },
    });
    expect(
      await refusal({
        type: "oidc",
        issuer: `${provider.issuer}/.well-known/openid-configuration`,
        ...CLIENT,
      }),
    ).toMatchObject({ status: 400, detail: { path: "issuer" } });
    const down = await refusal({ type: "oidc", issuer: "http://127.0.0.1:9", ...CLIENT });
    expect(down).toMatchObject({ status: 400, code: "VALIDATION_FAILED", detail: { path: "issuer" } });
    expect(down.detail?.message).toMatch(/discovery document could not be read/);
    expect(
      await refusal({ type: "oidc", issuer: provider.issuer, ...CLIENT, idpInitiated: true }),
    ).toMatchObject({
      status: 400,
      detail: { path: "idpInitiated" },
    });
  });
});

describe("OpenID Connect connections on a host without allowPrivateNetworks", () => {
  it("refuses an http issuer, and an https one on a loopback, private or link-local address, before any request to it", async () => {
    const strict = await startSsoHost();
    try {
      const create = async (issuer: string) => {
        const response = await strict.call(
          "POST",
          `/organizations/${strict.organization.id}/sso/connections`,
          {
            type: "oidc",
            issuer,
            ...CLIENT,
          },
        );
        const answer = (await response.json()) as { errors?: { path: string; message: string }[] };
        return { status: response.status, detail: answer.errors?.[0] };
      };
      expect(await create(provider.issuer)).toMatchObject({ status: 400, detail: { path: "issuer" } });
      for (const [issuer, address] of [
        ["https://127.0.0.1:8443", "127.0.0.1"],
        ["https://10.1.2.3", "10.1.2.3"],
        ["https://169.254.169.254", "169.254.169.254"],
        ["https://[fd00::1]", "fd00::1"],
      ] as const) {
        const refused = await create(issuer);
        expect(refused).toMatchObject({ status: 400, detail: { path: "issuer" } });
        expect(refused.detail?.message).toContain(`blocked address ${address}`);
      }
      expect((await strict.stores.sso.listSsoConnections(strict.organization.id)).length).toBe(0);
    } finally {
      await strict.close();
    }
  });
});
