import { fetchSamlPostedForm, startTestSamlIdp, type TestSamlIdp } from "@portcullis/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SsoHost, startSsoHost } from "./test-sso-server.js";

let host: SsoHost;
let idp: TestSamlIdp;
let connection: { id: string; serviceProvider: { entityId: string; acsUrl: string } };

/** The cookies of a response's `Set-Cookie` lines, as a `Cookie` header would send them. */
const cookiesOf = (response: Response) =>
  response.headers
    .getSetCookie()
    .map((line) => line.split(";")[0] ?? "")
    .filter((pair) => !pair.endsWith("="))
    .join("; ");

/** Claims and verifies a domain for the host's organization through its TXT record. */
async function verifiedDomain(domain: string) {
  const claimed = await host.call("POST", `/organizations/${host.organization.id}/domains`, { domain });
  const { record } = ((await claimed.json()) as { domain: { record: { name: string; value: string } } })
    .domain;
  host.txt.set(record.name, [["unrelated"], [record.value]]);
  const verified = await host.call("POST", `/organizations/${host.organization.id}/domains/${domain}/verify`);
  expect(verified.status).toBe(200);
}

/**
 * The browser's whole SP-initiated sign-in as `user` at the IdP, with `knobs` varying its answer:
 * `/sso/start`, the IdP's form posted to the ACS, the ACS's 303 followed with `finishCookie`
 * (the binding cookie `/sso/start` set, unless a test gives another). Answers the finish's response.
 */
async function signInThroughIdp(
  user: string,
  options: { knobs?: Record<string, string>; finishCookie?: string; returnTo?: string } = {},
) {
  const started = await host.start({ email: user, returnTo: options.returnTo });
  expect(started.status).toBe(200);
  const { url } = (await started.json()) as { url: string };
  const form = await fetchSamlPostedForm(url, { user, ...options.knobs });
  const acs = await postToAcs(form.samlResponse, form.relayState);
  const location = acs.headers.get("location") ?? "";
  if (!location.startsWith("/api/auth/sso/finish?token=")) return acs;
  return fetch(`${host.origin}${location}`, {
    redirect: "manual",
    headers: { cookie: options.finishCookie ?? cookiesOf(started) },
  });
}

/** The IdP's form as the browser posts it: from the IdP's site, with no cookie of ours. */
const postToAcs = (samlResponse: string, relayState: string) =>
  fetch(connection.serviceProvider.acsUrl, {
    method: "POST",
    redirect: "manual",
    headers: { origin: new URL(idp.ssoUrl).origin, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ SAMLResponse: samlResponse, RelayState: relayState }).toString(),
  });

/** Where a redirect sends the browser, as a URL. */
const target = (response: Response) => new URL(response.headers.get("location") ?? "", host.origin);

beforeAll(async () => {
  host = await startSsoHost();
  // The SP's names hold the connection's id, which exists only once the IdP's certificate is
  // known: the IdP is told them afterwards, as its administrator would be.
  idp = await startTestSamlIdp({ entityId: "urn:placeholder", acsUrl: "http://127.0.0.1/placeholder" });
  await verifiedDomain("acme.test");
  const created = await host.call("POST", `/organizations/${host.organization.id}/sso/connections`, {
    type: "saml",
    entityId: idp.entityId,
    ssoUrl: idp.ssoUrl,
    certificate: idp.certificate,
    domains: ["acme.test"],
  });
  expect(created.status).toBe(201);
  const body = (await created.json()) as { connection: typeof connection; scimToken: string };
  expect(body.scimToken).toMatch(/^scim_[\w-]{43}$/);
  connection = body.connection;
  await idp.register(connection.serviceProvider);
}, 60_000);

afterAll(async () => {
  await idp?.close();
  await host?.close();
});

describe("SAML sign-in through a connection", () => {
  it("sso start and ACS - a first sign-in creates the account, a member with the default role, signed in at returnTo", async () => {
    const finished = await signInThroughIdp("ada@acme.test", { returnTo: "/projects?tab=1" });
    expect(finished.status).toBe(302);
    expect(target(finished).pathname + target(finished).search).toBe("/projects?tab=1");
    const cookies = cookiesOf(finished);
    expect(cookies).toContain("access_token=");
    const me = await fetch(`${host.api}/me`, { headers: { cookie: cookies } });
    expect((await me.json()) as { email: string; emailVerified: boolean }).toMatchObject({
      email: "ada@acme.test",
      emailVerified: true,
      name: "Ada Lovelace",
    });
    const user = await host.stores.users.findByEmail("ada@acme.test");
    const membership = await host.stores.organizations.findMembership(host.organization.id, user?.id ?? "");
    expect(membership?.membership.role).toBe("member");
    // The second sign-in finds the same account through its link.
    const again = await signInThroughIdp("ada@acme.test");
    expect(target(again).pathname).toBe("/");
    expect((await host.stores.users.findByEmail("ada@acme.test"))?.id).toBe(user?.id);
  });

  it("sso finish - in another browser (without the binding cookie of the request) the sign-in is refused", async () => {
    for (const finishCookie of ["", "sso_request=someone-elses-binding-value-000000000000000000"]) {
      const finished = await signInThroughIdp("grace@acme.test", { finishCookie });
      expect(target(finished).pathname).toBe("/login");
      expect(target(finished).searchParams.get("error")).toBe("SSO_ASSERTION_INVALID");
    }
    expect(await host.stores.users.findByEmail("grace@acme.test")).toBeNull();
  });

  it("ACS - refusals: a stranger's signature, another audience, an unsigned assertion, an expired one: no account", async () => {
    const refused: Record<string, string>[] = [
      { key: "other" },
      { audience: "https://other-sp.test" },
      { sign: "response" },
      { lifetime: "-600" },
    ];
    for (const knobs of refused) {
      const answered = await signInThroughIdp("mallory@acme.test", { knobs });
      expect(answered.status).toBe(302);
      expect(target(answered).searchParams.get("error")).toBe("SSO_ASSERTION_INVALID");
    }
    expect(await host.stores.users.findByEmail("mallory@acme.test")).toBeNull();
  });

  it("sso finish - an address outside the organization's verified domains never signs in: SSO_DOMAIN_NOT_VERIFIED", async () => {
    // /sso/start routes by the address's domain, but the IdP may assert another address.
    const started = await host.start({ email: "eve@acme.test" });
    const { url } = (await started.json()) as { url: string };
    const form = await fetchSamlPostedForm(url, { user: "eve@elsewhere.test" });
    const acs = await postToAcs(form.samlResponse, form.relayState);
    const finished = await fetch(`${host.origin}${acs.headers.get("location")}`, {
      redirect: "manual",
      headers: { cookie: cookiesOf(started) },
    });
    expect(target(finished).searchParams.get("error")).toBe("SSO_DOMAIN_NOT_VERIFIED");
    expect(await host.stores.users.findByEmail("eve@elsewhere.test")).toBeNull();
  });

  it("sso finish - a user the connection's SCIM directory has deactivated is refused, and joins nothing", async () => {
    const now = host.auth.clock.now();
    const user = {
      connectionId: connection.id,
      userId: "not-yet-an-account",
      externalId: null,
      active: false,
      suspendedRole: "member",
      attributes: {},
      version: 1,
      createdAt: now,
      updatedAt: now,
    };
    await host.stores.scim.createScimUser({ ...user, id: "scim-left", userName: "Left@acme.test" });
    const finished = await signInThroughIdp("left@acme.test");
    expect(target(finished).searchParams.get("error")).toBe("SSO_USER_DEACTIVATED");
    expect(await host.stores.users.findByEmail("left@acme.test")).toBeNull();
    // Found by its account too, whatever its userName: the account of ada@acme.test (a member).
    const ada = await host.stores.users.findByEmail("ada@acme.test");
    const created = { ...user, id: "scim-ada", userName: "ada.lovelace", userId: ada?.id ?? "" };
    await host.stores.scim.createScimUser(created);
    expect(target(await signInThroughIdp("ada@acme.test")).searchParams.get("error")).toBe(
      "SSO_USER_DEACTIVATED",
    );
    await host.stores.scim.updateScimUser(connection.id, "scim-ada", 1, { active: true, updatedAt: now });
    expect(target(await signInThroughIdp("ada@acme.test")).searchParams.get("error")).toBeNull();
  });

  it("ACS - an unasked (IdP-initiated) response is refused while the connection does not allow it", async () => {
    const form = await fetchSamlPostedForm(idp.idpInitiatedUrl, { user: "ada@acme.test" });
    const acs = await postToAcs(form.samlResponse, form.relayState);
    expect(target(acs).searchParams.get("error")).toBe("SSO_ASSERTION_INVALID");
  });

  it("ACS - a response posted twice: the second is refused (its request and its assertion are used)", async () => {
    const started = await host.start({ email: "ada@acme.test" });
    const { url } = (await started.json()) as { url: string };
    const form = await fetchSamlPostedForm(url, { user: "ada@acme.test" });
    const answers = await Promise.all([1, 2, 3].map(() => postToAcs(form.samlResponse, form.relayState)));
    const finishes = answers.filter((answer) =>
      (answer.headers.get("location") ?? "").includes("/sso/finish"),
    );
    expect(finishes.length).toBe(1);
  });

  it("sso start - an address whose domain no connection signs in: 404 NOT_FOUND; a malformed one: 400", async () => {
    const start = (email: unknown) => host.start({ email });
    expect((await start("someone@nowhere.test")).status).toBe(404);
    for (const email of ["no-at-sign", 42, "a@-bad-.test"]) expect((await start(email)).status).toBe(400);
  });

  it("sso start - by the organization's slug: its connection's identity provider; an unknown slug or one without a connection 404, a malformed one 400", async () => {
    const bySlug = await host.start({ organization: host.organization.slug });
    expect(bySlug.status).toBe(200);
    const { url } = (await bySlug.json()) as { url: string };
    expect(url.startsWith(idp.ssoUrl)).toBe(true);
    // The whole sign-in goes through from there, as from an address.
    const form = await fetchSamlPostedForm(url, { user: "ada@acme.test" });
    const acs = await postToAcs(form.samlResponse, form.relayState);
    const finished = await fetch(`${host.origin}${acs.headers.get("location")}`, {
      redirect: "manual",
      headers: { cookie: cookiesOf(bySlug) },
    });
    expect(cookiesOf(finished)).toContain("access_token=");
    const { organization } = await host.auth.organizations.create(
      { principal: host.owner.principal },
      { name: "No SSO", slug: "no-sso" },
    );
    expect(organization.slug).toBe("no-sso");
    expect((await host.start({ organization: "no-sso" })).status).toBe(404);
    expect((await host.start({ organization: "nobody-has-this" })).status).toBe(404);
    for (const slug of ["No Spaces", "x", 7])
      expect((await host.start({ organization: slug })).status).toBe(400);
  });

  it("metadata - the service provider's metadata names its entity id and ACS; an unknown connection is 404", async () => {
    const metadata = await fetch(connection.serviceProvider.entityId);
    expect(metadata.headers.get("content-type")).toContain("application/samlmetadata+xml");
    const xml = await metadata.text();
    expect(xml).toContain(`entityID="${connection.serviceProvider.entityId}"`);
    expect(xml).toContain(`Location="${connection.serviceProvider.acsUrl}"`);
    expect((await fetch(`${host.api}/sso/saml/unknown/metadata`)).status).toBe(404);
  });
});
