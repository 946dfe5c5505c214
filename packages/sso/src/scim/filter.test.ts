import { describe, expect, it } from "vitest";
import { compileScimGroupFilter, compileScimUserFilter } from "./filter.js";
import type { ScimUser } from "./resources.js";
import { errorOf, storedGroup, storedUser, successOf, T0 } from "./test-support.js";

const okta = storedUser();
const entra = storedUser({
  id: "usr_2",
  externalId: "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef",
  userName: "Test_User_ab6490ee@testuser.com",
  active: false,
  name: null,
  displayName: null,
  emails: [
    { value: "Test_User_ab6490ee@testuser.com", type: "work", primary: true },
    { value: "private@example.org", type: "home", primary: false },
  ],
  groups: ["grp_1"],
  created: T0 + 86_400_000,
  lastModified: T0 + 86_400_000,
});
const users = [okta, entra];

/** The ids of the users the filter matches. */
function ids(filter: string): string[] {
  const compiled = successOf(compileScimUserFilter(filter));
  return users.filter((user: ScimUser) => compiled.matches(user)).map((user) => user.id);
}

describe("compileScimUserFilter", () => {
  it("compileScimUserFilter - matches Okta's userName eq without case, and gives the indexed read", () => {
    const filter = successOf(compileScimUserFilter('userName eq "test.user@OKTA.local"'));
    expect(users.filter(filter.matches).map((user) => user.id)).toEqual(["usr_1"]);
    expect(filter.lookup).toEqual({
      attribute: "userName",
      value: "test.user@OKTA.local",
      caseExact: false,
      exact: true,
    });
  });

  it("compileScimUserFilter - matches Entra's externalId eq with case, and gives the indexed read", () => {
    const filter = successOf(compileScimUserFilter('externalId eq "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef"'));
    expect(filter.lookup).toEqual({
      attribute: "externalId",
      value: "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef",
      caseExact: true,
      exact: true,
    });
    expect(ids('externalId eq "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef"')).toEqual(["usr_2"]);
    expect(ids('externalId eq "0A21F0F2-8D2A-4F8E-BF98-7363C4AED4EF"')).toEqual([]);
  });

  it("compileScimUserFilter - gives an inexact indexed read for an and, none for an or or another operator", () => {
    const and = successOf(compileScimUserFilter('active eq true and USERNAME eq "x" and id eq "usr_1"'));
    expect(and.lookup).toEqual({ attribute: "id", value: "usr_1", caseExact: true, exact: false });
    expect(successOf(compileScimUserFilter('userName eq "a" or userName eq "b"')).lookup).toBeNull();
    expect(successOf(compileScimUserFilter('userName sw "a"')).lookup).toBeNull();
    expect(successOf(compileScimUserFilter("userName eq null")).lookup).toBeNull();
    expect(
      successOf(compileScimUserFilter('urn:ietf:params:scim:schemas:core:2.0:User:userName eq "a"')).lookup,
    ).toMatchObject({ attribute: "userName", value: "a" });
  });

  it.each([
    ['userName co "USER@"', ["usr_1"]],
    ['userName sw "test_"', ["usr_2"]],
    ['userName ew ".COM"', ["usr_2"]],
    ['userName ne "test.user@okta.local"', ["usr_2"]],
    ['displayName eq "test user"', ["usr_1"]],
    ['name.familyName eq "USER"', ["usr_1"]],
    ["name pr", ["usr_1"]],
    ["displayName pr", ["usr_1"]],
    ["externalId pr", ["usr_1", "usr_2"]],
    ["not (displayName pr)", ["usr_2"]],
    ["displayName eq null", ["usr_2"]],
    ["active eq true", ["usr_1"]],
    ['active eq "False"', ["usr_2"]],
    ["active ne true", ["usr_2"]],
    ['emails co "@example.org"', ["usr_2"]],
    ['emails.value eq "TEST.USER@okta.local"', ["usr_1"]],
    ['emails[type eq "work" and value co "testuser.com"]', ["usr_2"]],
    ['emails[type eq "home" and primary eq true]', []],
    ['emails[type eq "work" and primary eq true]', ["usr_1", "usr_2"]],
    ['groups eq "grp_1"', ["usr_2"]],
    ['groups[value eq "GRP_1"]', []],
    ['meta.created gt "2024-01-01T12:00:00Z"', ["usr_2"]],
    ['meta.lastModified le "2024-01-01T00:00:00Z"', ["usr_1"]],
    ['meta.lastModified eq "2024-01-01T00:00:00.000Z"', ["usr_1"]],
    ['meta.resourceType eq "User"', ["usr_1", "usr_2"]],
    ['userName gt "u"', []],
    ['userName lt "u"', ["usr_1", "usr_2"]],
    ['userName eq "nobody" or active eq false', ["usr_2"]],
    ['active eq true and (userName sw "x" or displayName pr)', ["usr_1"]],
    ['userName eq "a" or userName eq "test.user@okta.local" and active eq false', []],
    ['USERNAME EQ "Test.User@okta.local"', ["usr_1"]],
  ])("compileScimUserFilter - %s matches %j", (filter, expected) => {
    expect(ids(filter)).toEqual(expected);
  });

  it.each([
    ["an empty filter", ""],
    ["a missing value", "userName eq"],
    ["an unknown operator", 'userName is "x"'],
    ["single quotes", "userName eq 'x'"],
    ["an open parenthesis", '(userName eq "x"'],
    ["a dangling and", 'userName eq "x" and'],
    ["trailing words", 'userName eq "x" extra'],
    ["an unclosed value filter", 'emails[type eq "work"'],
    ["an unknown attribute", 'nickName eq "x"'],
    [
      "an extension attribute",
      'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber eq "1"',
    ],
    ["a number for a string", "userName eq 1"],
    ["an order on a boolean", "active gt false"],
    ["co on a boolean", "active co true"],
    ["a word for a boolean", 'active eq "yes"'],
    ["a date that is not one", 'meta.created gt "yesterday"'],
    ["sw on a date", 'meta.created sw "2024"'],
    ["eq on a complex attribute", 'name eq "x"'],
    ["a value filter on a simple attribute", 'userName[value eq "x"]'],
    ["an unknown sub-attribute in a value filter", 'emails[display eq "x"]'],
    ["a too long filter", `userName eq "${"x".repeat(5000)}"`],
  ])("compileScimUserFilter - refuses %s as invalidFilter", (_, filter) => {
    errorOf(compileScimUserFilter(filter), "invalidFilter");
  });
});

describe("compileScimGroupFilter", () => {
  const groups = [
    storedGroup(),
    storedGroup({ id: "grp_2", displayName: "Sales", members: ["usr_1"], externalId: "e2" }),
  ];
  const groupIds = (filter: string) => {
    const compiled = successOf(compileScimGroupFilter(filter));
    return groups.filter(compiled.matches).map((group) => group.id);
  };

  it("compileScimGroupFilter - matches Entra's displayName eq without case, and gives the indexed read", () => {
    const filter = successOf(compileScimGroupFilter('displayName eq "engineering"'));
    expect(filter.lookup).toEqual({
      attribute: "displayName",
      value: "engineering",
      caseExact: false,
      exact: true,
    });
    expect(groups.filter(filter.matches).map((group) => group.id)).toEqual(["grp_1"]);
  });

  it("compileScimGroupFilter - filters on members and externalId, and refuses user attributes", () => {
    expect(groupIds('members eq "usr_1"')).toEqual(["grp_2"]);
    expect(groupIds('members[value eq "usr_1"]')).toEqual(["grp_2"]);
    expect(groupIds("not (members pr)")).toEqual(["grp_1"]);
    expect(successOf(compileScimGroupFilter('externalId eq "e2"')).lookup).toMatchObject({
      attribute: "externalId",
    });
    errorOf(compileScimGroupFilter('userName eq "x"'), "invalidFilter");
  });
});
