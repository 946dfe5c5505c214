// SCIM 2.0 per SSO connection through each adapter (`@portcullis/sso`'s routes, passed in by
// `sso`): users as Okta and Microsoft Entra ID provision them, groups that name a role, 20
// concurrent group PATCHes and 10 concurrent POSTs of one user, the refusals (tokens, other
// organizations, domains, syntax, a failing store) and the discovery documents.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { APP_ORIGIN, PASSWORD } from "./fixture.js";
import {
  bootScim,
  entraUser,
  groupBody,
  idOf,
  oktaUser,
  patchOp,
  roleOf,
  type ScimApp,
  type ScimSuiteOptions,
  scimClient,
  scimConnection,
  sessionOf,
  signsIn,
} from "./scim-fixture.js";

import { sharedSamlIdp, ssoSignInTests } from "./sso-sign-in.js";

export type { ScimSuiteOptions, ScimSuiteSetup } from "./scim-fixture.js";

/** A test of the area: its name ("<method> <path> - <behaviour>") and body, given the app's boot. */
type ScimTests = Record<string, (boot: () => Promise<ScimApp>) => Promise<void>>;

/** The address filter (`userName eq "<email>"`) of a list, URL-encoded. */
const userNameIs = (email: string) => encodeURIComponent(`userName eq "${email}"`);

/** The users as Okta provisions them. */
const oktaTests: ScimTests = {
  "POST /scim/v2/Users - after Okta's userName filter finds none: the account (address verified) and its membership with the default role":
    async (boot) => {
      const app = await boot();
      const none = await app.scim(
        "GET",
        `/Users?filter=${userNameIs("ada@acme.test")}&startIndex=1&count=100`,
      );
      expect(none.status).toBe(200);
      expect(none.headers.get("content-type")).toMatch(/^application\/scim\+json/);
      expect(none.body).toMatchObject({ totalResults: 0, startIndex: 1, Resources: [] });
      const created = await app.scim("POST", "/Users", oktaUser("ada@acme.test"));
      expect(created.status, created.text).toBe(201);
      expect(created.headers.get("location")).toBe(`${APP_ORIGIN}/api/auth/scim/v2/Users/${idOf(created)}`);
      expect(created.body).toMatchObject({
        userName: "ada@acme.test",
        active: true,
        displayName: "Ada Lovelace",
      });
      expect(created.text).not.toContain("sent-by-okta");
      const account = await app.stores.users.findByEmail("ada@acme.test");
      expect(account).toMatchObject({ emailVerified: true, passwordHash: null, name: "Ada Lovelace" });
      expect(await roleOf(app, "ada@acme.test")).toBe("member");
      // Okta's lookup before each push: the filter in another case of the address finds it.
      const found = await app.scim("GET", `/Users?filter=${userNameIs("ADA@acme.test")}`);
      expect(found.body).toMatchObject({ totalResults: 1, itemsPerPage: 1 });
      expect(found.body.Resources?.[0]?.id).toBe(idOf(created));
      const read = await app.scim("GET", `/Users/${idOf(created)}`);
      expect(read.body).toMatchObject({ id: idOf(created), groups: [] });
    },

  "PATCH /scim/v2/Users/:id - active false ends the account's sessions and API keys and removes its membership; active true gives the role back":
    async (boot) => {
      const app = await boot();
      const created = await app.scim("POST", "/Users", oktaUser("lin@acme.test"));
      const userId = (await app.stores.users.findByEmail("lin@acme.test"))?.id ?? "";
      await app.auth.organizations.changeMemberRole(
        { principal: app.owner.principal },
        { organizationId: app.organizationId, userId, body: { role: "admin" } },
      );
      await app.auth.host.setPassword({}, { userId, password: PASSWORD });
      const { accessToken } = await sessionOf(app, "lin@acme.test");
      const principal = await app.auth.authenticate({ token: accessToken });
      const stepUp = await app.auth.stepUp({ principal }, { password: PASSWORD });
      const stepUpToken = stepUp.twoFactorRequired ? "" : stepUp.stepUpToken;
      const { key } = await app.auth.apiKeys.create({ principal, stepUpToken }, { name: "CI" });
      expect((await app.auth.authenticate({ token: key })).userId).toBe(userId);
      expect(await signsIn(app, accessToken)).toBe(true);
      const off = patchOp({ op: "replace", value: { active: false } });
      const deactivated = await app.scim("PATCH", `/Users/${idOf(created)}`, off);
      expect(deactivated.status, deactivated.text).toBe(200);
      expect(deactivated.body.active).toBe(false);
      expect(await roleOf(app, "lin@acme.test")).toBeNull();
      expect(await signsIn(app, accessToken)).toBe(false);
      expect(await signsIn(app, key)).toBe(false);
      expect(app.events).toContainEqual(
        expect.objectContaining({
          type: "user.deprovisioned",
          userId,
          organizationId: app.organizationId,
          actorType: "scim",
          reason: "sessions_ended:1",
        }),
      );
      const on = patchOp({ op: "replace", value: { active: true } });
      const reactivated = await app.scim("PATCH", `/Users/${idOf(created)}`, on);
      expect(reactivated.body.active).toBe(true);
      expect(await roleOf(app, "lin@acme.test")).toBe("admin");
    },

  "POST /scim/v2/Users - created inactive, an account that is a member already (signed in before) loses the membership; reactivation gives its role back":
    async (boot) => {
      const app = await boot();
      const email = "sol@acme.test";
      const user = await app.auth.host.createUser({}, { email, password: PASSWORD, emailVerified: true });
      const membership = { organizationId: app.organizationId, userId: user.id, role: "admin" };
      await app.stores.organizations?.addMember?.({ ...membership, joinedAt: app.clock.now() });
      expect(await roleOf(app, email)).toBe("admin");
      const created = await app.scim("POST", "/Users", oktaUser(email, false));
      expect(created.status, created.text).toBe(201);
      expect(created.body.active).toBe(false);
      expect(await roleOf(app, email)).toBeNull();
      const on = patchOp({ op: "replace", value: { active: true } });
      expect((await app.scim("PATCH", `/Users/${idOf(created)}`, on)).body.active).toBe(true);
      expect(await roleOf(app, email)).toBe("admin");
    },

  "PUT /scim/v2/Users/:id - replaces the user (Okta's profile push); a userName another user has in any case is 409 uniqueness":
    async (boot) => {
      const app = await boot();
      const created = await app.scim("POST", "/Users", oktaUser("mae@acme.test"));
      const other = await app.scim("POST", "/Users", oktaUser("kay@acme.test"));
      const replaced = await app.scim("PUT", `/Users/${idOf(created)}`, {
        ...oktaUser("mae@acme.test"),
        id: idOf(created),
        name: { givenName: "Mae", familyName: "Jemison" },
        displayName: "Mae Jemison",
      });
      expect(replaced.status, replaced.text).toBe(200);
      expect(replaced.body).toMatchObject({ displayName: "Mae Jemison", name: { givenName: "Mae" } });
      const taken = await app.scim("PUT", `/Users/${idOf(created)}`, {
        ...oktaUser("KAY@acme.test"),
        id: idOf(created),
      });
      expect(taken.status, taken.text).toBe(409);
      expect(taken.body).toMatchObject({ scimType: "uniqueness", status: "409" });
      expect((await app.scim("GET", `/Users/${idOf(created)}`)).body.userName).toBe("mae@acme.test");
      expect((await app.scim("POST", "/Users", oktaUser("Kay@ACME.test"))).status).toBe(409);
      expect(idOf(other)).not.toBe(idOf(created));
    },

  "GET /scim/v2/Users - paging with startIndex and count; totalResults counts them all": async (boot) => {
    const app = await boot();
    for (const name of ["ann", "bea", "cay", "dot"]) {
      const created = await app.scim("POST", "/Users", oktaUser(`${name}@acme.test`));
      expect(created.status, created.text).toBe(201);
    }
    const listed = await app.scim("GET", "/Users?startIndex=2&count=2");
    const all = await app.scim("GET", "/Users");
    expect(all.body.totalResults).toBe(4);
    expect(listed.body).toMatchObject({ startIndex: 2, itemsPerPage: 2, totalResults: 4 });
    const ids = (all.body.Resources ?? []).map((user) => user.id);
    expect(ids).toHaveLength(4);
    expect((listed.body.Resources ?? []).map((user) => user.id)).toEqual(ids.slice(1, 3));
    expect((await app.scim("GET", "/Users?count=0")).body).toMatchObject({ itemsPerPage: 0, Resources: [] });
  },
};

/** The users and groups as Microsoft Entra ID provisions them. */
const entraTests: ScimTests = {
  "POST /scim/v2/Users - as Entra ID sends it: the externalId filter finds it, PATCH Replace with a string boolean ends its access, DELETE keeps the account":
    async (boot) => {
      const app = await boot();
      const body = entraUser("grace@acme.test");
      const created = await app.scim("POST", "/Users", body);
      expect(created.status, created.text).toBe(201);
      const filter = encodeURIComponent(`externalId eq "${body.externalId}"`);
      const byExternalId = await app.scim("GET", `/Users?filter=${filter}`);
      expect(byExternalId.body.Resources?.[0]).toMatchObject({
        id: idOf(created),
        name: { formatted: "Grace Hopper" },
      });
      const { accessToken } = await sessionOf(app, "grace@acme.test");
      expect(await signsIn(app, accessToken)).toBe(true);
      expect(await roleOf(app, "grace@acme.test")).toBe("member");
      const off = patchOp({ op: "Replace", path: "active", value: "False" });
      expect((await app.scim("PATCH", `/Users/${idOf(created)}`, off)).body.active).toBe(false);
      expect(await signsIn(app, accessToken)).toBe(false);
      expect(await roleOf(app, "grace@acme.test")).toBeNull();
      expect((await app.scim("DELETE", `/Users/${idOf(created)}`)).status).toBe(204);
      expect((await app.scim("GET", `/Users/${idOf(created)}`)).status).toBe(404);
      // The account stays: deprovisioning removes its access, not the person.
      expect(await app.stores.users.findByEmail("grace@acme.test")).not.toBeNull();
    },

  "PATCH /scim/v2/Groups/:id - a group named after a role gives its members the role; leaving it gives the default role back":
    async (boot) => {
      const app = await boot();
      const user = await app.scim("POST", "/Users", entraUser("joan@acme.test"));
      const group = await app.scim("POST", "/Groups", {
        ...groupBody("Admin"),
        externalId: crypto.randomUUID(),
      });
      expect(group.status, group.text).toBe(201);
      const filter = encodeURIComponent('displayName eq "admin"');
      const listed = await app.scim("GET", `/Groups?excludedAttributes=members&filter=${filter}`);
      expect(listed.body.Resources?.[0]).toMatchObject({ id: idOf(group), displayName: "Admin" });
      expect(listed.body.Resources?.[0]).not.toHaveProperty("members");
      const member = [{ value: idOf(user) }];
      const added = await app.scim(
        "PATCH",
        `/Groups/${idOf(group)}`,
        patchOp({ op: "Add", path: "members", value: member }),
      );
      expect(added.status, added.text).toBe(200);
      expect(await roleOf(app, "joan@acme.test")).toBe("admin");
      expect((await app.scim("GET", `/Users/${idOf(user)}`)).body.groups).toEqual([
        expect.objectContaining({ value: idOf(group) }),
      ]);
      // A group that names no role changes nothing.
      const other = await app.scim("POST", "/Groups", groupBody("Engineering", [idOf(user)]));
      expect(other.status, other.text).toBe(201);
      expect(await roleOf(app, "joan@acme.test")).toBe("admin");
      await app.scim(
        "PATCH",
        `/Groups/${idOf(group)}`,
        patchOp({ op: "Remove", path: "members", value: member }),
      );
      expect(await roleOf(app, "joan@acme.test")).toBe("member");
      expect((await app.scim("DELETE", `/Groups/${idOf(other)}`)).status).toBe(204);
      expect(await roleOf(app, "joan@acme.test")).toBe("member");
    },
};

/** The refusals, and the discovery documents. */
const refusalTests: ScimTests = {
  "GET /scim/v2/Users - no token, a wrong one: 401 in SCIM's shape; another organization's connection sees none of these users":
    async (boot) => {
      const app = await boot();
      for (const token of [undefined, "scim_not-a-token", "x".repeat(600)]) {
        const reply = await scimClient(app, token)("GET", "/Users");
        expect(reply.status).toBe(401);
        expect(reply.body).toMatchObject({
          schemas: ["urn:ietf:params:scim:api:messages:2.0:Error"],
          status: "401",
        });
        expect(reply.headers.get("www-authenticate")).toBe("Bearer");
      }
      const mine = await app.scim("POST", "/Users", oktaUser("secret@acme.test"));
      const { organization } = await app.auth.organizations.create(
        { principal: app.owner.principal },
        { name: "Other" },
      );
      const other = (await scimConnection(app, organization.id, ["other.test"])).request;
      expect((await other("GET", `/Users/${idOf(mine)}`)).status).toBe(404);
      expect((await other("GET", "/Users")).body.totalResults).toBe(0);
      const filtered = await other("GET", `/Users?filter=${userNameIs("secret@acme.test")}`);
      expect(filtered.body.totalResults).toBe(0);
      const off = patchOp({ op: "replace", value: { active: false } });
      expect((await other("PATCH", `/Users/${idOf(mine)}`, off)).status).toBe(404);
      expect(await roleOf(app, "secret@acme.test")).toBe("member");
    },

  "POST /scim/v2/Users - an address outside the verified domains, bad JSON, a bad filter, an unknown member: 400 and nothing stored":
    async (boot) => {
      const app = await boot();
      const outside = await app.scim("POST", "/Users", oktaUser("eve@elsewhere.test"));
      expect(outside.status).toBe(400);
      expect(outside.body).toMatchObject({ scimType: "invalidValue" });
      expect(await app.stores.users.findByEmail("eve@elsewhere.test")).toBeNull();
      expect((await app.scim("POST", "/Users", "{not json")).body).toMatchObject({
        status: "400",
        scimType: "invalidSyntax",
      });
      const badFilter = await app.scim("GET", `/Users?filter=${encodeURIComponent("userName eq")}`);
      expect(badFilter.body).toMatchObject({ scimType: "invalidFilter" });
      const group = await app.scim("POST", "/Groups", groupBody("Ghosts", ["no-such-user"]));
      expect(group.body).toMatchObject({ status: "400", scimType: "invalidValue" });
      const listed = await app.scim("GET", `/Groups?filter=${encodeURIComponent('displayName eq "Ghosts"')}`);
      expect(listed.body.totalResults).toBe(0);
    },

  "GET /scim/v2/Users - a store that fails: 500 in SCIM's shape, and nothing granted": async (boot) => {
    const app = await boot();
    app.failing.add("findSsoConnectionByScimTokenHash");
    try {
      const reply = await app.scim("GET", "/Users");
      expect(reply.status).toBe(500);
      expect(reply.body).toMatchObject({ status: "500" });
    } finally {
      app.failing.clear();
    }
    app.failing.add("createScimUser");
    try {
      expect((await app.scim("POST", "/Users", oktaUser("down@acme.test"))).status).toBe(500);
      expect(await roleOf(app, "down@acme.test")).toBeNull();
    } finally {
      app.failing.clear();
    }
  },

  "GET /scim/v2/ServiceProviderConfig - discovery: ServiceProviderConfig, Schemas and ResourceTypes": async (
    boot,
  ) => {
    const app = await boot();
    const config = await app.scim("GET", "/ServiceProviderConfig");
    expect(config.body).toMatchObject({ patch: { supported: true }, filter: { supported: true } });
    expect((await app.scim("GET", "/Schemas")).body.totalResults).toBe(2);
    expect((await app.scim("GET", "/ResourceTypes/User")).body).toMatchObject({ id: "User" });
    expect((await app.scim("GET", "/Schemas/urn:nope")).status).toBe(404);
  },
};

/** Requests an identity provider sends at once; each with a longer timeout (a loaded machine, SQL locks). */
const scimRaces: ScimTests = {
  "PATCH /scim/v2/Groups/:id - 20 concurrent PATCHes adding one member each to one group: all 20 are members":
    async (boot) => {
      const app = await boot();
      const group = await app.scim("POST", "/Groups", groupBody("Team"));
      expect(group.status, group.text).toBe(201);
      const users = await Promise.all(
        Array.from({ length: 20 }, (_, i) => app.scim("POST", "/Users", entraUser(`team${i}@acme.test`))),
      );
      expect(users.map((user) => user.status)).toEqual(Array(20).fill(201));
      const patched = await Promise.all(
        users.map((user) =>
          app.scim(
            "PATCH",
            `/Groups/${idOf(group)}`,
            patchOp({ op: "Add", path: "members", value: [{ value: idOf(user) }] }),
          ),
        ),
      );
      const refused = patched.filter((reply) => reply.status !== 200).map((reply) => reply.text);
      expect(
        patched.map((reply) => reply.status),
        refused.join("\n"),
      ).toEqual(Array(20).fill(200));
      const read = await app.scim("GET", `/Groups/${idOf(group)}`);
      const members = (read.body.members as { value: string }[]).map((member) => member.value);
      expect(members.sort()).toEqual(users.map(idOf).sort());
    },

  "POST /scim/v2/Users - 10 concurrent POSTs of one user: one 201, nine 409, one account": async (boot) => {
    const app = await boot();
    const replies = await Promise.all(
      Array.from({ length: 10 }, () => app.scim("POST", "/Users", oktaUser("rush@acme.test"))),
    );
    expect(replies.filter((reply) => reply.status === 201)).toHaveLength(1);
    expect(replies.filter((reply) => reply.status === 409)).toHaveLength(9);
    const found = await app.scim("GET", `/Users?filter=${userNameIs("rush@acme.test")}`);
    expect(found.body.totalResults).toBe(1);
  },
};

/** The races' timeout, in ms: 20 requests at once meet each database's locking on a loaded machine. */
const RACE_TIMEOUT_MS = 30_000;

/**
 * SCIM 2.0 of `@portcullis/sso` (passed in by `sso`) through an adapter, without transcripts (its
 * ids and tokens are random): each test boots its own auth on fresh `createStores`, with an owner
 * of the organization Acme and Acme's connection (its SCIM token, `acme.test` verified), and sends
 * SCIM requests as Okta and Entra ID send them (`application/scim+json`, `Authorization: Bearer`).
 * One SAML test identity provider serves the whole run (`sharedSamlIdp`): each test that uses it
 * registers its own app's connection there.
 */
export function runScimAdapterSuite(options: ScimSuiteOptions): void {
  describe(`scim: ${options.name}`, () => {
    const boot = bootScim(options);
    // One SAML identity provider (a child process) for the run, not one per test.
    const samlIdp = sharedSamlIdp();
    beforeAll(() => samlIdp.start());
    afterAll(() => samlIdp.close());
    for (const [name, test] of Object.entries({ ...oktaTests, ...entraTests, ...refusalTests }))
      it(name, () => test(boot));
    for (const [name, test] of Object.entries(ssoSignInTests))
      it(name, () => test({ boot, samlIdp: samlIdp.get }));
    for (const [name, test] of Object.entries(scimRaces)) it(name, () => test(boot), RACE_TIMEOUT_MS);
  });
}
