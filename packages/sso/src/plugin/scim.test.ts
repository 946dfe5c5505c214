import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  entraUser,
  oktaUser,
  patchOp,
  roleOf,
  type ScimReply,
  scimClient,
  scimConnection,
  sessionOf,
} from "./test-scim.js";
import { PASSWORD, type SsoHost, startSsoHost } from "./test-sso-server.js";

let host: SsoHost;
let scim: Awaited<ReturnType<typeof scimConnection>>["request"];
let orgId: string;

beforeAll(async () => {
  host = await startSsoHost();
  orgId = host.organization.id;
  ({ request: scim } = await scimConnection(host, orgId, ["acme.test"]));
}, 30_000);

afterAll(async () => {
  await host?.close();
});

const id = (reply: ScimReply) => String(reply.body.id);
/** A group as Entra ID and Okta create one. */
const groupBody = (displayName: string, members: string[] = []) => ({
  schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"],
  displayName,
  members: members.map((value) => ({ value })),
});
const signedIn = async (token: string) =>
  host.auth.authenticate({ token }).then(
    () => true,
    () => false,
  );

describe("SCIM users, as Okta provisions them", () => {
  it("POST /Users after the userName filter finds none: the account (address verified) and its membership with the default role", async () => {
    const none = await scim(
      "GET",
      `/Users?filter=${encodeURIComponent('userName eq "ada@acme.test"')}&startIndex=1&count=100`,
    );
    expect(none.status).toBe(200);
    expect(none.headers.get("content-type")).toMatch(/^application\/scim\+json/);
    expect(none.body).toMatchObject({ totalResults: 0, startIndex: 1, Resources: [] });
    const created = await scim("POST", "/Users", oktaUser("ada@acme.test"));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.headers.get("location")).toBe(`${host.api}/scim/v2/Users/${id(created)}`);
    expect(created.body).toMatchObject({
      userName: "ada@acme.test",
      active: true,
      displayName: "Ada Lovelace",
    });
    expect(JSON.stringify(created.body)).not.toContain("sent-by-okta");
    const account = await host.stores.users.findByEmail("ada@acme.test");
    expect(account).toMatchObject({ emailVerified: true, passwordHash: null, name: "Ada Lovelace" });
    expect(await roleOf(host, orgId, "ada@acme.test")).toBe("member");
    // Okta's lookup before each push: the filter in another case of the address finds it.
    const found = await scim("GET", `/Users?filter=${encodeURIComponent('userName eq "ADA@acme.test"')}`);
    expect(found.body).toMatchObject({ totalResults: 1, itemsPerPage: 1 });
    expect(found.body.Resources?.[0]?.id).toBe(id(created));
    expect((await scim("GET", `/Users/${id(created)}`)).body).toMatchObject({ id: id(created), groups: [] });
  });

  it("PATCH active false ends the account's sessions and API keys and removes its membership; active true gives the role back", async () => {
    const created = await scim("POST", "/Users", oktaUser("lin@acme.test"));
    const account = await host.stores.users.findByEmail("lin@acme.test");
    const userId = account?.id ?? "";
    const admin = host.owner.principal;
    await host.auth.organizations.changeMemberRole(
      { principal: admin },
      { organizationId: orgId, userId, body: { role: "admin" } },
    );
    await host.auth.host.setPassword({}, { userId, password: PASSWORD });
    const { accessToken } = await sessionOf(host.auth, "lin@acme.test");
    const principal = await host.auth.authenticate({ token: accessToken });
    const stepUp = await host.auth.stepUp({ principal }, { password: PASSWORD });
    const stepUpToken = stepUp.twoFactorRequired ? "" : stepUp.stepUpToken;
    const { key } = await host.auth.apiKeys.create({ principal, stepUpToken }, { name: "CI" });
    expect((await host.auth.authenticate({ token: key })).userId).toBe(userId);
    expect(await signedIn(accessToken)).toBe(true);
    const deactivated = await scim(
      "PATCH",
      `/Users/${id(created)}`,
      patchOp({ op: "replace", value: { active: false } }),
    );
    expect(deactivated.status, JSON.stringify(deactivated.body)).toBe(200);
    expect(deactivated.body.active).toBe(false);
    expect(await roleOf(host, orgId, "lin@acme.test")).toBeNull();
    expect(await signedIn(accessToken)).toBe(false);
    expect(await signedIn(key)).toBe(false);
    expect(host.events).toContainEqual(
      expect.objectContaining({
        type: "user.deprovisioned",
        userId,
        organizationId: orgId,
        actorType: "scim",
        reason: "sessions_ended:1",
      }),
    );
    const reactivated = await scim(
      "PATCH",
      `/Users/${id(created)}`,
      patchOp({ op: "replace", value: { active: true } }),
    );
    expect(reactivated.body.active).toBe(true);
    expect(await roleOf(host, orgId, "lin@acme.test")).toBe("admin");
  });

  it("PUT replaces the user (Okta's profile push); a userName another user has in any case is 409 uniqueness", async () => {
    const created = await scim("POST", "/Users", oktaUser("mae@acme.test"));
    const other = await scim("POST", "/Users", oktaUser("kay@acme.test"));
    const replaced = await scim("PUT", `/Users/${id(created)}`, {
      ...oktaUser("mae@acme.test"),
      id: id(created),
      name: { givenName: "Mae", familyName: "Jemison" },
      displayName: "Mae Jemison",
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ displayName: "Mae Jemison", name: { givenName: "Mae" } });
    const taken = await scim("PUT", `/Users/${id(created)}`, {
      ...oktaUser("KAY@acme.test"),
      id: id(created),
    });
    expect(taken.status).toBe(409);
    expect(taken.body).toMatchObject({ scimType: "uniqueness", status: "409" });
    expect((await scim("GET", `/Users/${id(created)}`)).body.userName).toBe("mae@acme.test");
    expect((await scim("POST", "/Users", oktaUser("Kay@ACME.test"))).status).toBe(409);
    expect(id(other)).not.toBe(id(created));
  });

  it("paging with startIndex and count; totalResults counts them all", async () => {
    const listed = await scim("GET", "/Users?startIndex=2&count=2");
    const all = await scim("GET", "/Users");
    expect(listed.body).toMatchObject({
      startIndex: 2,
      itemsPerPage: 2,
      totalResults: all.body.totalResults,
    });
    const ids = (all.body.Resources ?? []).map((user) => user.id);
    expect((listed.body.Resources ?? []).map((user) => user.id)).toEqual(ids.slice(1, 3));
    expect((await scim("GET", "/Users?count=0")).body).toMatchObject({ itemsPerPage: 0, Resources: [] });
  });
});

describe("SCIM users and groups, as Microsoft Entra ID provisions them", () => {
  it("POST, the externalId filter, PATCH with Replace and a string boolean, DELETE", async () => {
    const body = entraUser("grace@acme.test");
    const created = await scim("POST", "/Users", body);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const byExternalId = await scim(
      "GET",
      `/Users?filter=${encodeURIComponent(`externalId eq "${body.externalId}"`)}`,
    );
    expect(byExternalId.body.Resources?.[0]).toMatchObject({
      id: id(created),
      name: { formatted: "Grace Hopper" },
    });
    const { accessToken } = await sessionOf(host.auth, "grace@acme.test");
    expect(await signedIn(accessToken)).toBe(true);
    expect(await roleOf(host, orgId, "grace@acme.test")).toBe("member");
    const off = await scim(
      "PATCH",
      `/Users/${id(created)}`,
      patchOp({ op: "Replace", path: "active", value: "False" }),
    );
    expect(off.body.active).toBe(false);
    expect(await signedIn(accessToken)).toBe(false);
    expect(await roleOf(host, orgId, "grace@acme.test")).toBeNull();
    expect((await scim("DELETE", `/Users/${id(created)}`)).status).toBe(204);
    expect((await scim("GET", `/Users/${id(created)}`)).status).toBe(404);
    // The account stays: deprovisioning removes its access, not the person.
    expect(await host.stores.users.findByEmail("grace@acme.test")).not.toBeNull();
  });

  it("a group named after a role gives its members the role; leaving it gives the default role back", async () => {
    const user = await scim("POST", "/Users", entraUser("joan@acme.test"));
    const group = await scim("POST", "/Groups", {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"],
      externalId: crypto.randomUUID(),
      displayName: "Admin",
      members: [],
    });
    expect(group.status, JSON.stringify(group.body)).toBe(201);
    const listed = await scim(
      "GET",
      `/Groups?excludedAttributes=members&filter=${encodeURIComponent('displayName eq "admin"')}`,
    );
    expect(listed.body.Resources?.[0]).toMatchObject({ id: id(group), displayName: "Admin" });
    expect(listed.body.Resources?.[0]).not.toHaveProperty("members");
    const added = await scim(
      "PATCH",
      `/Groups/${id(group)}`,
      patchOp({ op: "Add", path: "members", value: [{ value: id(user) }] }),
    );
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    expect(await roleOf(host, orgId, "joan@acme.test")).toBe("admin");
    expect((await scim("GET", `/Users/${id(user)}`)).body.groups).toEqual([
      expect.objectContaining({ value: id(group) }),
    ]);
    // A group that names no role changes nothing.
    const other = await scim("POST", "/Groups", groupBody("Engineering", [id(user)]));
    expect(other.status, JSON.stringify(other.body)).toBe(201);
    expect(await roleOf(host, orgId, "joan@acme.test")).toBe("admin");
    await scim(
      "PATCH",
      `/Groups/${id(group)}`,
      patchOp({ op: "Remove", path: "members", value: [{ value: id(user) }] }),
    );
    expect(await roleOf(host, orgId, "joan@acme.test")).toBe("member");
    expect((await scim("DELETE", `/Groups/${id(other)}`)).status).toBe(204);
    expect(await roleOf(host, orgId, "joan@acme.test")).toBe("member");
  });

  it("20 concurrent PATCHes adding one member each to one group: all 20 are members", async () => {
    const group = await scim("POST", "/Groups", groupBody(`Team ${Date.now()}`));
    const users = await Promise.all(
      Array.from({ length: 20 }, (_, i) => scim("POST", "/Users", entraUser(`team${i}@acme.test`))),
    );
    const patched = await Promise.all(
      users.map((user) =>
        scim(
          "PATCH",
          `/Groups/${id(group)}`,
          patchOp({ op: "Add", path: "members", value: [{ value: id(user) }] }),
        ),
      ),
    );
    expect(patched.map((reply) => reply.status)).toEqual(Array(20).fill(200));
    const members = ((await scim("GET", `/Groups/${id(group)}`)).body.members as { value: string }[]).map(
      (member) => member.value,
    );
    expect(members.sort()).toEqual(users.map(id).sort());
  });
});

describe("SCIM refusals", () => {
  it("no token, a wrong one: 401 in SCIM's shape; another organization's connection sees none of these users", async () => {
    for (const token of [undefined, "scim_not-a-token", "x".repeat(600)]) {
      const reply = await scimClient(host, token)("GET", "/Users");
      expect(reply.status).toBe(401);
      expect(reply.body).toMatchObject({
        schemas: ["urn:ietf:params:scim:api:messages:2.0:Error"],
        status: "401",
      });
      expect(reply.headers.get("www-authenticate")).toBe("Bearer");
    }
    const mine = await scim("POST", "/Users", oktaUser("secret@acme.test"));
    const { organization } = await host.auth.organizations.create(
      { principal: host.owner.principal },
      { name: "Other" },
    );
    const other = await scimConnection(host, organization.id, ["other.test"]);
    expect((await other.request("GET", `/Users/${id(mine)}`)).status).toBe(404);
    expect((await other.request("GET", "/Users")).body.totalResults).toBe(0);
    const filter = encodeURIComponent('userName eq "secret@acme.test"');
    expect((await other.request("GET", `/Users?filter=${filter}`)).body.totalResults).toBe(0);
    expect(
      (
        await other.request(
          "PATCH",
          `/Users/${id(mine)}`,
          patchOp({ op: "replace", value: { active: false } }),
        )
      ).status,
    ).toBe(404);
    expect(await roleOf(host, orgId, "secret@acme.test")).toBe("member");
  });

  it("an address outside the verified domains, bad JSON, a bad filter, an unknown member: 400 and nothing stored", async () => {
    const outside = await scim("POST", "/Users", oktaUser("eve@elsewhere.test"));
    expect(outside.status).toBe(400);
    expect(outside.body).toMatchObject({ scimType: "invalidValue" });
    expect(await host.stores.users.findByEmail("eve@elsewhere.test")).toBeNull();
    expect((await scim("POST", "/Users", "{not json")).body).toMatchObject({
      status: "400",
      scimType: "invalidSyntax",
    });
    expect((await scim("GET", `/Users?filter=${encodeURIComponent("userName eq")}`)).body).toMatchObject({
      scimType: "invalidFilter",
    });
    const group = await scim("POST", "/Groups", groupBody("Ghosts", ["no-such-user"]));
    expect(group.body).toMatchObject({ status: "400", scimType: "invalidValue" });
    const listed = await scim("GET", `/Groups?filter=${encodeURIComponent('displayName eq "Ghosts"')}`);
    expect(listed.body.totalResults).toBe(0);
  });

  it("10 concurrent POSTs of one user: one 201, nine 409, one account", async () => {
    const replies = await Promise.all(
      Array.from({ length: 10 }, () => scim("POST", "/Users", oktaUser("rush@acme.test"))),
    );
    expect(replies.filter((reply) => reply.status === 201)).toHaveLength(1);
    expect(replies.filter((reply) => reply.status === 409)).toHaveLength(9);
    const filter = encodeURIComponent('userName eq "rush@acme.test"');
    expect((await scim("GET", `/Users?filter=${filter}`)).body.totalResults).toBe(1);
  });

  it("a store that fails: 500 in SCIM's shape, and nothing granted", async () => {
    host.failing.add("findSsoConnectionByScimTokenHash");
    try {
      const reply = await scim("GET", "/Users");
      expect(reply.status).toBe(500);
      expect(reply.body).toMatchObject({ status: "500" });
    } finally {
      host.failing.clear();
    }
    host.failing.add("createScimUser");
    try {
      expect((await scim("POST", "/Users", oktaUser("down@acme.test"))).status).toBe(500);
      expect(await roleOf(host, orgId, "down@acme.test")).toBeNull();
    } finally {
      host.failing.clear();
    }
  });

  it("discovery: ServiceProviderConfig, Schemas and ResourceTypes", async () => {
    const config = await scim("GET", "/ServiceProviderConfig");
    expect(config.body).toMatchObject({ patch: { supported: true }, filter: { supported: true } });
    expect((await scim("GET", "/Schemas")).body.totalResults).toBe(2);
    expect((await scim("GET", "/ResourceTypes/User")).body).toMatchObject({ id: "User" });
    expect((await scim("GET", "/Schemas/urn:nope")).status).toBe(404);
  });
});
