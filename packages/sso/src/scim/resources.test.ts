import { describe, expect, it } from "vitest";
import { replaceScimGroup, replaceScimUser } from "./changes.js";
import { scimError, scimStatusError } from "./errors.js";
import { readScimGroup, readScimUser } from "./read-resources.js";
import { toScimGroupJson, toScimUserJson } from "./resources.js";
import { BASE_URL, errorOf, storedGroup, storedUser, successOf, T0 } from "./test-support.js";

const USER = "urn:ietf:params:scim:schemas:core:2.0:User";
const ENTERPRISE = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";

/** Okta's POST /Users (its SCIM 2.0 reference). */
const OKTA_CREATE = {
  schemas: [USER],
  userName: "test.user@okta.local",
  name: { givenName: "Test", familyName: "User" },
  emails: [{ primary: true, value: "test.user@okta.local", type: "work" }],
  displayName: "Test User",
  locale: "en-US",
  externalId: "00ujl29u0le5T6Aj10h7",
  groups: [],
  password: "1mz050nq",
  active: true,
};

/** Microsoft Entra ID's POST /Users (its SCIM provisioning tutorial), with the enterprise extension. */
const ENTRA_CREATE = {
  schemas: [USER, ENTERPRISE],
  externalId: "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef",
  userName: "Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1",
  active: true,
  emails: [
    { primary: true, type: "work", value: "Test_User_fd0ea19b-0777-472c-9f96-4f70d2226f2e@testuser.com" },
  ],
  meta: { resourceType: "User" },
  name: { formatted: "givenName familyName", familyName: "familyName", givenName: "givenName" },
  roles: [],
  [ENTERPRISE]: {
    department: "Sales",
    employeeNumber: "701984",
    manager: { value: "26118915-6090-4610-87e4" },
  },
};

describe("readScimUser", () => {
  it("readScimUser - reads Okta's create body, ignoring password, locale and groups", () => {
    expect(successOf(readScimUser(OKTA_CREATE))).toEqual({
      userName: "test.user@okta.local",
      externalId: "00ujl29u0le5T6Aj10h7",
      active: true,
      name: { givenName: "Test", familyName: "User", formatted: null },
      displayName: "Test User",
      emails: [{ value: "test.user@okta.local", type: "work", primary: true }],
    });
  });

  it("readScimUser - reads Entra's create body, ignoring the enterprise extension and roles", () => {
    expect(successOf(readScimUser(ENTRA_CREATE))).toEqual({
      userName: "Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1",
      externalId: "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef",
      active: true,
      name: { givenName: "givenName", familyName: "familyName", formatted: "givenName familyName" },
      displayName: null,
      emails: [
        { value: "Test_User_fd0ea19b-0777-472c-9f96-4f70d2226f2e@testuser.com", type: "work", primary: true },
      ],
    });
  });

  it("readScimUser - takes string booleans, attribute names in any case, and active true by default", () => {
    const read = successOf(
      readScimUser({
        schemas: [USER],
        USERNAME: "  a@example.com ",
        Active: "False",
        Emails: [{ Value: "a@example.com", Type: "Work", Primary: "True" }],
        name: {},
      }),
    );
    expect(read).toMatchObject({ userName: "a@example.com", active: false, name: null });
    expect(read.emails).toEqual([{ value: "a@example.com", type: "work", primary: true }]);
    expect(successOf(readScimUser({ schemas: [USER], userName: "b" })).active).toBe(true);
  });

  it("readScimUser - refuses a body that is not a SCIM user as invalidSyntax", () => {
    errorOf(readScimUser({ userName: "a" }), "invalidSyntax");
    errorOf(
      readScimUser({ schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], userName: "a" }),
      "invalidSyntax",
    );
    errorOf(readScimUser([OKTA_CREATE]), "invalidSyntax");
    errorOf(readScimUser(null), "invalidSyntax");
  });

  it.each([
    ["no userName", { displayName: "x" }],
    ["a blank userName", { userName: "   " }],
    ["a userName that is not a string", { userName: 42 }],
    ["a too long userName", { userName: "a".repeat(1025) }],
    ["active that is not a boolean", { userName: "a", active: "yes" }],
    ["a name that is not an object", { userName: "a", name: "Test User" }],
    ["emails that are not an array", { userName: "a", emails: { value: "a@example.com" } }],
    ["an email without an address", { userName: "a", emails: [{ type: "work" }] }],
    ["an email that is not an address", { userName: "a", emails: [{ value: "not an address" }] }],
    [
      "two primary emails",
      {
        userName: "a",
        emails: [
          { value: "a@example.com", primary: true },
          { value: "b@example.com", primary: "True" },
        ],
      },
    ],
  ])("readScimUser - refuses %s as invalidValue", (_, fields) => {
    errorOf(readScimUser({ schemas: [USER], ...fields }), "invalidValue");
  });
});

describe("readScimGroup", () => {
  it("readScimGroup - reads Okta's and Entra's create bodies", () => {
    const okta = {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"],
      displayName: "Test SCIMv2",
      members: [],
    };
    expect(successOf(readScimGroup(okta))).toEqual({
      displayName: "Test SCIMv2",
      externalId: null,
      members: [],
    });
    const entra = {
      schemas: [
        "urn:ietf:params:scim:schemas:core:2.0:Group",
        "http://schemas.microsoft.com/2006/11/ResourceManagement/ADSCIM/2.0/Group",
      ],
      externalId: "8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159",
      displayName: "displayName",
      meta: { resourceType: "Group" },
    };
    expect(successOf(readScimGroup(entra))).toEqual({
      displayName: "displayName",
      externalId: "8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159",
      members: [],
    });
  });

  it("readScimGroup - keeps each member once, by value", () => {
    const body = {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"],
      displayName: "G",
      members: [{ value: "u1", display: "One" }, { value: "u2" }, { value: "u1" }],
    };
    expect(successOf(readScimGroup(body)).members).toEqual(["u1", "u2"]);
  });

  it("readScimGroup - refuses a group without displayName or with a member without value", () => {
    const schemas = ["urn:ietf:params:scim:schemas:core:2.0:Group"];
    errorOf(readScimGroup({ schemas, members: [] }), "invalidValue");
    errorOf(readScimGroup({ schemas, displayName: "G", members: [{ display: "x" }] }), "invalidValue");
    errorOf(readScimGroup({ schemas, displayName: "G", members: "u1" }), "invalidValue");
    errorOf(readScimGroup({ displayName: "G" }), "invalidSyntax");
  });
});

describe("replaceScimUser", () => {
  /** Okta's PUT /Users/:id: the whole user, with id and meta, here deactivating it. */
  const oktaPut = (fields: Record<string, unknown>) => ({
    schemas: [USER],
    id: "usr_1",
    userName: "Test.User@okta.local",
    name: { givenName: "Another", middleName: "", familyName: "User" },
    emails: [{ primary: true, value: "test.user@okta.local", type: "work" }],
    displayName: "Test User",
    externalId: "00ujl29u0le5T6Aj10h7",
    active: true,
    groups: [],
    meta: { resourceType: "User" },
    ...fields,
  });

  it("replaceScimUser - applies Okta's PUT and reports the fields that changed", () => {
    const existing = storedUser({ groups: ["grp_1"] });
    const write = successOf(replaceScimUser(existing, oktaPut({}), { now: T0 + 1000 }));
    expect(write.changes).toEqual({ fields: ["name"], deactivated: false, reactivated: false });
    expect(write.resource).toEqual({
      ...existing,
      name: { givenName: "Another", familyName: "User", formatted: null },
      lastModified: T0 + 1000,
    });
  });

  it("replaceScimUser - reports a deactivation and a reactivation", () => {
    const off = successOf(
      replaceScimUser(
        storedUser(),
        oktaPut({ active: false, name: { givenName: "Test", familyName: "User" } }),
      ),
    );
    expect(off.changes).toEqual({ fields: ["active"], deactivated: true, reactivated: false });
    const on = successOf(
      replaceScimUser(
        off.resource,
        oktaPut({ active: true, name: { givenName: "Test", familyName: "User" } }),
      ),
    );
    expect(on.changes).toEqual({ fields: ["active"], deactivated: false, reactivated: true });
  });

  it("replaceScimUser - ignores read-only id, groups and meta, and keeps active when the body has none", () => {
    const existing = storedUser({ active: false, groups: ["grp_1"] });
    const body = {
      ...oktaPut({ id: "other", groups: [{ value: "grp_9" }], meta: { created: "2000-01-01" } }),
    };
    delete (body as Record<string, unknown>).active;
    const write = successOf(replaceScimUser(existing, body, { now: T0 + 5 }));
    expect(write.resource).toMatchObject({ id: "usr_1", groups: ["grp_1"], active: false, created: T0 });
  });

  it("replaceScimUser - leaves lastModified alone when nothing changed, and refuses a bad body", () => {
    const existing = storedUser();
    const same = oktaPut({ name: { givenName: "Test", familyName: "User" } });
    const write = successOf(replaceScimUser(existing, same, { now: T0 + 1000 }));
    expect(write.changes.fields).toEqual([]);
    expect(write.resource).toEqual(existing);
    errorOf(replaceScimUser(existing, oktaPut({ userName: "" })), "invalidValue");
  });
});

describe("replaceScimGroup", () => {
  it("replaceScimGroup - replaces the members and lists who joined and who left", () => {
    const existing = storedGroup({ members: ["u1", "u2"] });
    const body = {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"],
      displayName: "Engineering",
      members: [{ value: "u2" }, { value: "u3" }],
    };
    const write = successOf(replaceScimGroup(existing, body, { now: T0 + 1 }));
    expect(write.changes).toEqual({ fields: ["members"], membersAdded: ["u3"], membersRemoved: ["u1"] });
    expect(write.resource).toMatchObject({ members: ["u2", "u3"], lastModified: T0 + 1 });
  });
});

describe("toScimUserJson", () => {
  it("toScimUserJson - answers the user with meta, group references, and no unassigned attributes", () => {
    const user = storedUser({
      externalId: null,
      displayName: null,
      name: { givenName: "Test", familyName: null, formatted: null },
      emails: [{ value: "a@example.com", type: null, primary: false }],
      groups: ["grp_1", "grp 2"],
      lastModified: T0 + 60_000,
    });
    const json = toScimUserJson(user, {
      baseUrl: `${BASE_URL}/`,
      displayNames: new Map([["grp_1", "Engineering"]]),
    });
    expect(json).toEqual({
      schemas: [USER],
      id: "usr_1",
      userName: "Test.User@okta.local",
      name: { givenName: "Test" },
      active: true,
      emails: [{ value: "a@example.com", primary: false }],
      groups: [
        { value: "grp_1", $ref: `${BASE_URL}/Groups/grp_1`, display: "Engineering" },
        { value: "grp 2", $ref: `${BASE_URL}/Groups/grp%202` },
      ],
      meta: {
        resourceType: "User",
        created: "2024-01-01T00:00:00.000Z",
        lastModified: "2024-01-01T00:01:00.000Z",
        location: `${BASE_URL}/Users/usr_1`,
        version: `W/"${(T0 + 60_000).toString(36)}"`,
      },
    });
  });
});

describe("toScimGroupJson", () => {
  it("toScimGroupJson - answers the group with its members as user references", () => {
    const json = toScimGroupJson(storedGroup({ externalId: "ext-1", members: ["usr_1"] }), {
      baseUrl: BASE_URL,
    });
    expect(json).toEqual({
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"],
      id: "grp_1",
      externalId: "ext-1",
      displayName: "Engineering",
      members: [{ value: "usr_1", $ref: `${BASE_URL}/Users/usr_1`, type: "User" }],
      meta: {
        resourceType: "Group",
        created: "2024-01-01T00:00:00.000Z",
        lastModified: "2024-01-01T00:00:00.000Z",
        location: `${BASE_URL}/Groups/grp_1`,
        version: `W/"${T0.toString(36)}"`,
      },
    });
  });
});

describe("scimError", () => {
  it("scimError - gives SCIM's error shape, 409 for uniqueness and 400 otherwise", () => {
    expect(scimError("uniqueness", "userName is taken.")).toEqual({
      schemas: ["urn:ietf:params:scim:api:messages:2.0:Error"],
      status: "409",
      scimType: "uniqueness",
      detail: "userName is taken.",
    });
    expect(scimError("tooMany", "x").status).toBe("400");
    expect(scimStatusError(404, "No such user.")).toEqual({
      schemas: ["urn:ietf:params:scim:api:messages:2.0:Error"],
      status: "404",
      detail: "No such user.",
    });
  });
});
