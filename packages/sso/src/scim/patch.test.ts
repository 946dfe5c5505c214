import { describe, expect, it } from "vitest";
import { applyScimPatch } from "./patch.js";
import { errorOf, patchBody, storedGroup, storedUser, successOf, T0 } from "./test-support.js";

const LATER = T0 + 60_000;

describe("applyScimPatch on users, as Okta sends it", () => {
  it("applyScimPatch - deactivates with Okta's value object without path", () => {
    const user = storedUser();
    const write = successOf(
      applyScimPatch(user, patchBody({ op: "replace", value: { active: false } }), { now: LATER }),
    );
    expect(write.changes).toEqual({ fields: ["active"], deactivated: true, reactivated: false });
    expect(write.resource).toEqual({ ...user, active: false, lastModified: LATER });
    expect(user.active).toBe(true);
  });

  it("applyScimPatch - reactivates with Okta's value object without path", () => {
    const write = successOf(
      applyScimPatch(storedUser({ active: false }), patchBody({ op: "replace", value: { active: true } })),
    );
    expect(write.changes).toEqual({ fields: ["active"], deactivated: false, reactivated: true });
    expect(write.resource.lastModified).toBe(T0);
  });

  it("applyScimPatch - merges a complex attribute given without path, as with one (RFC 7644 §3.5.2.3)", () => {
    const write = successOf(
      applyScimPatch(
        storedUser(),
        patchBody({ op: "replace", value: { name: { givenName: "Other" }, "name.formatted": "O U" } }),
      ),
    );
    expect(write.resource.name).toEqual({ givenName: "Other", familyName: "User", formatted: "O U" });
    expect(write.changes.fields).toEqual(["name"]);
  });
});

describe("applyScimPatch on users, as Microsoft Entra ID sends it", () => {
  it("applyScimPatch - deactivates with Entra's capitalized op and string boolean", () => {
    for (const value of ["False", "false", false]) {
      const write = successOf(
        applyScimPatch(storedUser(), patchBody({ op: "Replace", path: "active", value })),
      );
      expect(write.changes.deactivated).toBe(true);
      expect(write.resource.active).toBe(false);
    }
    const again = successOf(
      applyScimPatch(
        storedUser({ active: false }),
        patchBody({ op: "Replace", path: "active", value: "True" }),
      ),
    );
    expect(again.changes.reactivated).toBe(true);
  });

  it("applyScimPatch - applies Entra's multi-valued and single-valued replaces in one request", () => {
    const body = patchBody(
      { op: "Replace", path: 'emails[type eq "work"].value', value: "updatedEmail@microsoft.com" },
      { op: "Replace", path: "name.familyName", value: "updatedFamilyName" },
      { op: "Replace", path: "userName", value: "5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com" },
      { op: "Add", path: "displayName", value: "Updated Name" },
    );
    const write = successOf(applyScimPatch(storedUser(), body, { now: LATER }));
    expect(write.resource).toMatchObject({
      userName: "5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com",
      displayName: "Updated Name",
      name: { givenName: "Test", familyName: "updatedFamilyName", formatted: null },
      emails: [{ value: "updatedEmail@microsoft.com", type: "work", primary: true }],
      lastModified: LATER,
    });
    expect(write.changes.fields).toEqual(["userName", "name", "displayName", "emails"]);
  });

  it("applyScimPatch - adds an address for a filter that matches none (Entra's first work email)", () => {
    const body = patchBody({ op: "Add", path: 'emails[type eq "work"].value', value: "new@contoso.com" });
    const write = successOf(applyScimPatch(storedUser({ emails: [] }), body));
    expect(write.resource.emails).toEqual([{ value: "new@contoso.com", type: "work", primary: false }]);
  });

  it("applyScimPatch - ignores the enterprise extension and attributes it does not keep", () => {
    const body = patchBody(
      {
        op: "Add",
        path: "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department",
        value: "Sales",
      },
      { op: "Replace", path: 'addresses[type eq "work"].formatted', value: "1 Main St" },
      { op: "Remove", path: 'phoneNumbers[type eq "work"].value' },
      { op: "Add", path: "title", value: "Engineer" },
      {
        op: "Replace",
        value: {
          "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User": { manager: { value: "m" } },
          preferredLanguage: "en",
        },
      },
    );
    const write = successOf(applyScimPatch(storedUser(), body, { now: LATER }));
    expect(write.changes.fields).toEqual([]);
    expect(write.resource).toEqual(storedUser());
  });

  it("applyScimPatch - takes ops and attribute names in any case and the core schema's URN in a path", () => {
    const body = patchBody(
      { op: "REPLACE", path: "urn:ietf:params:scim:schemas:core:2.0:User:DisplayName", value: "X" },
      { OP: "add", Path: "ExternalId", Value: "ext-9" },
    );
    const write = successOf(applyScimPatch(storedUser(), body));
    expect(write.resource).toMatchObject({ displayName: "X", externalId: "ext-9" });
  });

  it("applyScimPatch - removes an attribute, and a filter that matches nothing removes nothing", () => {
    const write = successOf(
      applyScimPatch(
        storedUser(),
        patchBody(
          { op: "Remove", path: "displayName" },
          { op: "Remove", path: 'emails[type eq "home"]' },
          { op: "remove", path: 'emails[type eq "home"].value' },
        ),
      ),
    );
    expect(write.resource.displayName).toBeNull();
    expect(write.resource.emails).toHaveLength(1);
    expect(write.changes.fields).toEqual(["displayName"]);
  });
});

describe("applyScimPatch on groups", () => {
  const member = (value: string) => ({ value });

  it("applyScimPatch - adds members as Entra sends them and lists them as added", () => {
    const group = storedGroup({ members: ["u1"] });
    const body = patchBody({
      op: "Add",
      path: "members",
      value: [
        { $ref: null, value: "u2" },
        { $ref: null, value: "u1" },
      ],
    });
    const write = successOf(applyScimPatch(group, body, { now: LATER }));
    expect(write.resource).toMatchObject({ members: ["u1", "u2"], lastModified: LATER });
    expect(write.changes).toEqual({ fields: ["members"], membersAdded: ["u2"], membersRemoved: [] });
  });

  it("applyScimPatch - removes members by value as Entra sends it", () => {
    const group = storedGroup({ members: ["u1", "u2", "u3"] });
    const body = patchBody({
      op: "Remove",
      path: "members",
      value: [{ $ref: null, value: "u1" }, member("u3"), member("u9")],
    });
    const write = successOf(applyScimPatch(group, body));
    expect(write.resource.members).toEqual(["u2"]);
    expect(write.changes.membersRemoved).toEqual(["u1", "u3"]);
  });

  it("applyScimPatch - adds and removes members as Okta sends them, down to none and back", () => {
    const group = storedGroup({ members: ["u1", "u:2"] });
    const body = patchBody(
      { op: "remove", path: 'members[value eq "u1"]' },
      { op: "remove", path: 'members[value eq "u:2"]' },
      { op: "remove", path: 'members[value eq "u1"]' },
      { op: "add", path: "members", value: [{ value: "u3", display: "test.user@okta.local" }] },
    );
    const write = successOf(applyScimPatch(group, body));
    expect(write.resource.members).toEqual(["u3"]);
    expect(write.changes).toEqual({
      fields: ["members"],
      membersAdded: ["u3"],
      membersRemoved: ["u1", "u:2"],
    });
  });

  it("applyScimPatch - renames with Okta's value object that repeats the id", () => {
    const body = patchBody({ op: "replace", value: { id: "grp_1", displayName: "Test SCIMv2" } });
    const write = successOf(applyScimPatch(storedGroup(), body));
    expect(write.resource.displayName).toBe("Test SCIMv2");
    expect(write.changes.fields).toEqual(["displayName"]);
  });

  it("applyScimPatch - replaces all members, and removes all with a bare path", () => {
    const group = storedGroup({ members: ["u1", "u2"] });
    const replaced = successOf(
      applyScimPatch(group, patchBody({ op: "replace", path: "members", value: [member("u3")] })),
    );
    expect(replaced.resource.members).toEqual(["u3"]);
    const emptied = successOf(applyScimPatch(group, patchBody({ op: "Remove", path: "members" })));
    expect(emptied.resource.members).toEqual([]);
    expect(emptied.changes.membersRemoved).toEqual(["u1", "u2"]);
  });
});

describe("applyScimPatch refusals", () => {
  it.each([
    ["a body without the PatchOp schema", { Operations: [{ op: "replace", path: "active", value: false }] }],
    ["a body that is not an object", "replace active"],
    ["no operations", patchBody()],
    ["an unknown op", patchBody({ op: "move", path: "active", value: false })],
    ["an operation that is not an object", patchBody("replace")],
    ["a replace without value", patchBody({ op: "Replace", path: "active" })],
    ["an add without path and a value that is not an object", patchBody({ op: "add", value: "x" })],
    ["a path that is not a string", patchBody({ op: "replace", path: 3, value: "x" })],
  ])("applyScimPatch - refuses %s as invalidSyntax", (_, body) => {
    errorOf(applyScimPatch(storedUser(), body), "invalidSyntax");
  });

  it("applyScimPatch - refuses a remove without path as noTarget, whatever the op's case", () => {
    errorOf(applyScimPatch(storedUser(), patchBody({ op: "remove" })), "noTarget");
    errorOf(applyScimPatch(storedGroup(), patchBody({ op: "Remove", value: [{ value: "u1" }] })), "noTarget");
  });

  it("applyScimPatch - refuses a replace of a filtered element that does not exist as noTarget", () => {
    const body = patchBody({
      op: "replace",
      path: 'emails[type eq "home"]',
      value: { value: "h@example.com" },
    });
    errorOf(applyScimPatch(storedUser(), body), "noTarget");
  });

  it.each(['emails[type eq "work"', 'emails[type zz "work"].value', "emails..value", "name givenName"])(
    "applyScimPatch - refuses the path %s as invalidPath",
    (path) => {
      errorOf(applyScimPatch(storedUser(), patchBody({ op: "replace", path, value: "x" })), "invalidPath");
    },
  );

  it("applyScimPatch - refuses a change of id, meta or a user's groups as mutability", () => {
    errorOf(
      applyScimPatch(storedUser(), patchBody({ op: "replace", path: "id", value: "usr_2" })),
      "mutability",
    );
    errorOf(
      applyScimPatch(storedGroup(), patchBody({ op: "replace", value: { id: "grp_2" } })),
      "mutability",
    );
    errorOf(
      applyScimPatch(storedUser(), patchBody({ op: "add", path: "groups", value: [{ value: "grp_1" }] })),
      "mutability",
    );
    errorOf(
      applyScimPatch(storedUser(), patchBody({ op: "replace", path: "meta.created", value: "2000-01-01" })),
      "mutability",
    );
  });

  it.each([
    ["removing userName", { op: "remove", path: "userName" }],
    ["a userName that is not a string", { op: "replace", path: "userName", value: { first: "a" } }],
    ["active that is not a boolean", { op: "Replace", path: "active", value: "Maybe" }],
    ["an address that is not one", { op: "add", path: "emails", value: [{ value: "nope", type: "home" }] }],
    [
      "a second primary address",
      { op: "add", path: "emails", value: [{ value: "b@example.com", primary: "True" }] },
    ],
    [
      "a remove by value of a single-valued attribute",
      { op: "remove", path: "displayName", value: "Test User" },
    ],
  ])("applyScimPatch - refuses %s as invalidValue", (_, operation) => {
    errorOf(applyScimPatch(storedUser(), patchBody(operation)), "invalidValue");
  });

  it("applyScimPatch - refuses a group member without id and a group without displayName as invalidValue", () => {
    errorOf(
      applyScimPatch(storedGroup(), patchBody({ op: "add", path: "members", value: [{ display: "x" }] })),
      "invalidValue",
    );
    errorOf(
      applyScimPatch(storedGroup(), patchBody({ op: "Remove", path: "members", value: [{ display: "x" }] })),
      "invalidValue",
    );
    errorOf(applyScimPatch(storedGroup(), patchBody({ op: "remove", path: "displayName" })), "invalidValue");
  });
});
