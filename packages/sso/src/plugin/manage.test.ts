import { X509Certificate } from "node:crypto";
import { startTestSamlIdp, type TestSamlIdp } from "@portcullis/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Jars, PASSWORD, type SsoHost, startSsoHost, visit } from "./test-sso-server.js";

let host: SsoHost;
let idp: TestSamlIdp;

type Who = Awaited<ReturnType<SsoHost["signIn"]>>;
const orgPath = (path: string) => `/organizations/${host.organization.id}${path}`;
const codeOf = async (response: Response) => ((await response.json()) as { code?: string }).code;

/** A SAML connection's body for the test IdP. */
const samlBody = (extra: Record<string, unknown> = {}) => ({
  type: "saml",
  entityId: idp.entityId,
  ssoUrl: idp.ssoUrl,
  certificate: idp.certificate,
  ...extra,
});

/** Claims `domain` and publishes its TXT record. */
async function claimAndPublish(domain: string, path = orgPath("/domains"), who?: Who) {
  const claimed = await host.call("POST", path, { domain }, who);
  const { record } = ((await claimed.json()) as { domain: { record: { name: string; value: string } } })
    .domain;
  host.txt.set(record.name, [[record.value]]);
  return claimed;
}

/** A signed-in user who is a member of the host's organization with `role`. */
async function memberWith(email: string, role: string): Promise<Who> {
  const who = await host.signIn(email);
  await host.stores.organizations.addMember?.({
    organizationId: host.organization.id,
    userId: who.user.id,
    role,
    joinedAt: Date.now(),
  });
  return who;
}

/** A password sign-in's status and code. */
async function login(email: string, password = PASSWORD) {
  const response = await fetch(`${host.api}/login`, {
    method: "POST",
    headers: { origin: host.origin, "content-type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
  return { status: response.status, code: response.ok ? undefined : await codeOf(response) };
}

/**
 * A sign-in at the social identity provider (`oidc`) as a new account of `email`, redirects
 * followed by hand with a cookie jar per origin: where it lands on the app.
 */
async function socialSignIn(email: string): Promise<URL> {
  const account = `social-${email}`;
  host.social?.setAccount(account, { email, emailVerified: true, name: "Social" });
  const jars: Jars = new Map();
  let url = `${host.api}/oauth/oidc/authorize`;
  for (let hop = 0; hop < 20; hop++) {
    const response = await visit(url, jars, account);
    const next = new URL(response.headers.get("location") ?? "", url);
    if (next.origin === host.origin && !next.pathname.startsWith("/api/")) return next;
    url = next.href;
  }
  throw new Error("too many redirects");
}

beforeAll(async () => {
  host = await startSsoHost({
    socialProvider: true,
    ipLimits: { ssoSignInStarts: { max: 5, windowSeconds: 900 } },
  });
  idp = await startTestSamlIdp({ entityId: "urn:placeholder", acsUrl: "http://127.0.0.1/placeholder" });
}, 60_000);

afterAll(async () => {
  await idp?.close();
  await host?.close();
});

describe("enterprise sign-in's management routes", () => {
  it("domains - claim (its TXT record), claim again (the same token), verify only once the record is published", async () => {
    const first = await host.call("POST", orgPath("/domains"), { domain: "Example-Corp.TEST." });
    expect(first.status).toBe(201);
    const { domain } = (await first.json()) as {
      domain: { domain: string; verified: boolean; record: { name: string; value: string } };
    };
    expect(domain).toMatchObject({
      domain: "example-corp.test",
      verified: false,
      record: { type: "TXT", name: "_portcullis.example-corp.test" },
    });
    const again = await host.call("POST", orgPath("/domains"), { domain: "example-corp.test" });
    expect(again.status).toBe(200);
    expect(((await again.json()) as { domain: typeof domain }).domain.record.value).toBe(domain.record.value);
    // No record, a resolver error, a wrong value: not verified.
    const verify = () => host.call("POST", orgPath("/domains/example-corp.test/verify"));
    expect(await codeOf(await verify())).toBe("SSO_DOMAIN_CHECK_FAILED");
    host.txt.set(domain.record.name, [["portcullis-domain-verification=wrong"]]);
    expect(await codeOf(await verify())).toBe("SSO_DOMAIN_CHECK_FAILED");
    // A long value split into several strings of one record is joined, as DNS allows.
    host.txt.set(domain.record.name, [[domain.record.value.slice(0, 20), domain.record.value.slice(20)]]);
    const verified = await verify();
    expect(verified.status).toBe(200);
    expect(((await verified.json()) as { domain: { verified: boolean } }).domain.verified).toBe(true);
    const listed = (await (await host.call("GET", orgPath("/domains"))).json()) as {
      items: { domain: string }[];
    };
    expect(listed.items.map((item) => item.domain)).toContain("example-corp.test");
    for (const bad of ["", "not a domain", "127.0.0.1", "*.example.test", 42])
      expect((await host.call("POST", orgPath("/domains"), { domain: bad })).status).toBe(400);
  });

  it("domains - verified for one organization at most: another's verification is SSO_DOMAIN_TAKEN; released, it is free", async () => {
    await claimAndPublish("shared.test");
    expect((await host.call("POST", orgPath("/domains/shared.test/verify"))).status).toBe(200);
    const rival = await host.signIn("rival@rival.test");
    const { organization } = await host.auth.organizations.create(
      { principal: rival.principal },
      { name: "Rival" },
    );
    const rivalPath = `/organizations/${organization.id}/domains`;
    await claimAndPublish("shared.test", rivalPath, rival);
    const taken = await host.call("POST", `${rivalPath}/shared.test/verify`, undefined, rival);
    expect(taken.status).toBe(409);
    expect(await codeOf(taken)).toBe("SSO_DOMAIN_TAKEN");
    expect((await host.call("DELETE", orgPath("/domains/shared.test"))).status).toBe(200);
    expect((await host.call("DELETE", orgPath("/domains/shared.test"))).status).toBe(404);
    expect((await host.call("POST", `${rivalPath}/shared.test/verify`, undefined, rival)).status).toBe(200);
  });

  it("domains - the back office verifies without a record (claiming it first); anyone else is ADMIN_REQUIRED", async () => {
    const path = `/admin/organizations/${host.organization.id}/domains/admin-verified.test/verify`;
    expect(await codeOf(await host.call("POST", path))).toBe("ADMIN_REQUIRED");
    const admin = await host.signIn("admin@example.test");
    const verified = await host.call("POST", path, undefined, admin);
    expect(verified.status).toBe(200);
    expect(((await verified.json()) as { domain: { verified: boolean } }).domain.verified).toBe(true);
    const unknown = await host.call(
      "POST",
      "/admin/organizations/no-such-org/domains/x.test/verify",
      undefined,
      admin,
    );
    expect(await codeOf(unknown)).toBe("ORGANIZATION_NOT_FOUND");
  });

  it("connections - create (a step-up; the SCIM token once), list without the token, delete", async () => {
    const created = await host.call(
      "POST",
      orgPath("/sso/connections"),
      samlBody({ domains: ["conn-a.test"] }),
    );
    expect(created.status).toBe(201);
    const body = (await created.json()) as {
      connection: { id: string; defaultRole: string; scim: boolean };
      scimToken: string;
    };
    expect(body.connection).toMatchObject({ defaultRole: "member", scim: true });
    const listed = await (await host.call("GET", orgPath("/sso/connections"))).text();
    expect(listed).toContain(body.connection.id);
    expect(listed).not.toContain(body.scimToken);
    expect(listed).not.toContain("scimTokenHash");
    // A domain belongs to one connection at most.
    const twice = await host.call(
      "POST",
      orgPath("/sso/connections"),
      samlBody({ domains: ["conn-a.test"] }),
    );
    expect(await codeOf(twice)).toBe("SSO_DOMAIN_TAKEN");
    // A new SCIM token replaces the old one at once.
    const users = (token: string) =>
      fetch(`${host.api}/scim/v2/Users`, { headers: { authorization: `Bearer ${token}` } });
    expect((await users(body.scimToken)).status).toBe(200);
    const rotated = await host.call("POST", orgPath(`/sso/connections/${body.connection.id}/scim-token`));
    const { scimToken } = (await rotated.json()) as { scimToken: string };
    expect(scimToken).toMatch(/^scim_[\w-]{43}$/);
    expect((await users(body.scimToken)).status).toBe(401);
    expect((await users(scimToken)).status).toBe(200);
    const unknown = await host.call("POST", orgPath("/sso/connections/no-such-connection/scim-token"));
    expect(await codeOf(unknown)).toBe("NOT_FOUND");
    expect((await host.call("DELETE", orgPath(`/sso/connections/${body.connection.id}`))).status).toBe(200);
    expect((await host.call("DELETE", orgPath(`/sso/connections/${body.connection.id}`))).status).toBe(404);
    expect((await users(scimToken)).status).toBe(401);
  });

  it("connections - from the identity provider's metadata document: its entity id, URL and certificate", async () => {
    const metadataXml = await (await fetch(idp.metadataUrl)).text();
    const created = await host.call("POST", orgPath("/sso/connections"), { type: "saml", metadataXml });
    expect(created.status).toBe(201);
    const { connection } = (await created.json()) as { connection: { id: string } };
    const stored = await host.stores.sso.findSsoConnection(connection.id);
    expect(stored?.saml).toEqual({
      entityId: idp.entityId,
      ssoUrl: idp.ssoUrl,
      certificates: [new X509Certificate(idp.certificate).toString().trim()],
    });
    const broken = await host.call("POST", orgPath("/sso/connections"), {
      type: "saml",
      metadataXml: "<nope/>",
    });
    expect([broken.status, await codeOf(broken)]).toEqual([400, "VALIDATION_FAILED"]);
  });

  it("connections - bad input is 400 and stores nothing: another type, a bad certificate or URL, owner or an unknown role", async () => {
    const before = (await host.stores.sso.listSsoConnections(host.organization.id)).length;
    for (const body of [
      samlBody({ type: "oidc" }),
      samlBody({ certificate: "-----BEGIN CERTIFICATE-----\nnot one\n-----END CERTIFICATE-----" }),
      samlBody({ certificate: undefined }),
      samlBody({ ssoUrl: "http://idp.example.test/sso" }),
      samlBody({ ssoUrl: "javascript:alert(1)" }),
      samlBody({ defaultRole: "owner" }),
      samlBody({ defaultRole: "no-such-role" }),
      samlBody({ domains: ["ok.test", "not a domain"] }),
      samlBody({ ssoRequired: "yes" }),
      "not an object",
    ]) {
      const answer = await host.call("POST", orgPath("/sso/connections"), body);
      expect([answer.status, await codeOf(answer)]).toEqual([400, "VALIDATION_FAILED"]);
    }
    expect((await host.stores.sso.listSsoConnections(host.organization.id)).length).toBe(before);
  });

  it("authorization fails closed: no session 401, no step-up 401, a non-member 404 as for no organization, a member without sso:manage 403", async () => {
    const anonymous = await fetch(`${host.api}${orgPath("/sso/connections")}`, {
      headers: { origin: host.origin },
    });
    expect(anonymous.status).toBe(401);
    const noStepUp = { ...host.owner, headers: { ...host.owner.headers, "x-step-up-token": "" } };
    expect(await codeOf(await host.call("POST", orgPath("/sso/connections"), samlBody(), noStepUp))).toBe(
      "STEP_UP_REQUIRED",
    );
    const stranger = await host.signIn("stranger@elsewhere.test");
    for (const [method, path, body] of [
      ["GET", orgPath("/sso/connections"), undefined],
      ["POST", orgPath("/sso/connections"), samlBody()],
      ["GET", orgPath("/domains"), undefined],
      ["POST", orgPath("/domains"), { domain: "stranger.test" }],
    ] as const) {
      const answer = await host.call(method, path, body, stranger);
      expect([answer.status, await codeOf(answer)]).toEqual([404, "ORGANIZATION_NOT_FOUND"]);
      const missing = await host.call(
        method,
        path.replace(host.organization.id, "no-such-org"),
        body,
        stranger,
      );
      expect([missing.status, await codeOf(missing)]).toEqual([404, "ORGANIZATION_NOT_FOUND"]);
    }
    const member = await memberWith("plain-member@acme-members.test", "member");
    const denied = await host.call("GET", orgPath("/sso/connections"), undefined, member);
    expect([denied.status, await codeOf(denied)]).toEqual([403, "PERMISSION_DENIED"]);
    // A failing store refuses (500), never answers as if allowed.
    host.failing.add("listSsoConnections");
    try {
      expect((await host.call("GET", orgPath("/sso/connections"))).status).toBe(500);
    } finally {
      host.failing.clear();
    }
  });
});

describe("sso start's limit", () => {
  it("sso start - 10 at once from one IP with ipLimits.ssoSignInStarts at 5: 5 go on, 5 are 429 RATE_LIMITED", async () => {
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        host.start({ email: "someone@nowhere.test" }, { "x-forwarded-for": "203.0.113.7" }),
      ),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).toEqual([404, 404, 404, 404, 404, 429, 429, 429, 429, 429]);
  });
});

describe("ssoRequired", () => {
  it("login and identity providers - a domain that requires SSO: 403 SSO_REQUIRED with the right credential only (no account left behind); an owner still signs in", async () => {
    await claimAndPublish("required.test");
    expect((await host.call("POST", orgPath("/domains/required.test/verify"))).status).toBe(200);
    const created = await host.call(
      "POST",
      orgPath("/sso/connections"),
      samlBody({ domains: ["required.test"], ssoRequired: true }),
    );
    expect(created.status).toBe(201);
    await memberWith("worker@required.test", "member");
    expect(await login("worker@required.test")).toEqual({ status: 403, code: "SSO_REQUIRED" });
    expect(await login("worker@required.test", "a wrong password 123")).toEqual({
      status: 401,
      code: "INVALID_CREDENTIALS",
    });
    expect(await login("nobody@required.test")).toEqual({ status: 401, code: "INVALID_CREDENTIALS" });
    // Not a member of the organization at all: the domain still requires SSO.
    await host.signIn("outsider@required.test");
    expect(await login("outsider@required.test")).toEqual({ status: 403, code: "SSO_REQUIRED" });
    // The recovery path: an owner of the connection's organization.
    await memberWith("boss@required.test", "owner");
    expect((await login("boss@required.test")).status).toBe(200);
    // A social identity provider's first sign-in of such an address: refused, and no account is left.
    const landed = await socialSignIn("newcomer@required.test");
    expect(landed.searchParams.get("error")).toBe("SSO_REQUIRED");
    expect(await host.stores.users.findByEmail("newcomer@required.test")).toBeNull();
    // Another domain still signs in through it.
    expect((await socialSignIn("someone@unrequired.test")).searchParams.get("error")).toBeNull();
    expect(await host.stores.users.findByEmail("someone@unrequired.test")).not.toBeNull();
    // A store that fails refuses the sign-in instead of skipping the check.
    host.failing.add("findSsoRoute");
    try {
      expect(await login("boss@required.test")).toEqual({ status: 500, code: "DATABASE_FAILURE" });
    } finally {
      host.failing.clear();
    }
  });
});
