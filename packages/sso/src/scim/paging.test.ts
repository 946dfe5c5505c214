import { describe, expect, it } from "vitest";
import { projectScimJson, readScimPage, scimListPage, scimListResponse } from "./paging.js";
import { toScimGroupJson, toScimUserJson } from "./resources.js";
import { BASE_URL, errorOf, storedGroup, storedUser, successOf } from "./test-support.js";

describe("readScimPage", () => {
  it("readScimPage - reads Okta's startIndex=1&count=100 and defaults to the first page of the most", () => {
    expect(successOf(readScimPage({ startIndex: "1", count: "100" }))).toEqual({ startIndex: 1, count: 100 });
    expect(successOf(readScimPage({}))).toEqual({ startIndex: 1, count: 100 });
    expect(successOf(readScimPage({ startIndex: "", count: null }, 25))).toEqual({
      startIndex: 1,
      count: 25,
    });
  });

  it.each([
    [{ startIndex: "0" }, { startIndex: 1, count: 100 }],
    [{ startIndex: -4 }, { startIndex: 1, count: 100 }],
    [{ startIndex: " 7 " }, { startIndex: 7, count: 100 }],
    [{ count: "0" }, { startIndex: 1, count: 0 }],
    [{ count: "-3" }, { startIndex: 1, count: 0 }],
    [{ count: "1000" }, { startIndex: 1, count: 100 }],
    [{ count: 10 }, { startIndex: 1, count: 10 }],
  ])("readScimPage - reads %j as %j", (query, page) => {
    expect(successOf(readScimPage(query))).toEqual(page);
  });

  it.each([
    { startIndex: "first" },
    { count: "1.5" },
    { count: "10abc" },
    { startIndex: [1] },
    { count: true },
  ])("readScimPage - refuses %j as invalidValue", (query) => {
    errorOf(readScimPage(query), "invalidValue");
  });
});

describe("scimListPage", () => {
  const all = ["a", "b", "c", "d", "e"];

  it("scimListPage - answers the page asked for, with totalResults counting every match", () => {
    expect(scimListPage(all, { startIndex: 2, count: 2 })).toEqual({
      schemas: ["urn:ietf:params:scim:api:messages:2.0:ListResponse"],
      totalResults: 5,
      itemsPerPage: 2,
      startIndex: 2,
      Resources: ["b", "c"],
    });
  });

  it("scimListPage - answers only totalResults for count 0, and an empty page past the end", () => {
    expect(scimListPage(all, { startIndex: 1, count: 0 })).toMatchObject({
      totalResults: 5,
      itemsPerPage: 0,
      Resources: [],
    });
    expect(scimListPage(all, { startIndex: 9, count: 100 })).toMatchObject({
      totalResults: 5,
      itemsPerPage: 0,
      startIndex: 9,
      Resources: [],
    });
    expect(scimListPage(all, { startIndex: 4, count: 100 }).Resources).toEqual(["d", "e"]);
  });

  it("scimListResponse - answers no match as Okta expects when a user does not exist yet", () => {
    expect(scimListResponse([], 0, 1)).toEqual({
      schemas: ["urn:ietf:params:scim:api:messages:2.0:ListResponse"],
      totalResults: 0,
      itemsPerPage: 0,
      startIndex: 1,
      Resources: [],
    });
  });
});

describe("projectScimJson", () => {
  it("projectScimJson - drops Entra's excludedAttributes=members, keeping id and schemas", () => {
    const json = toScimGroupJson(storedGroup({ members: ["u1"] }), { baseUrl: BASE_URL });
    const projected = projectScimJson(json, { excludedAttributes: "members" });
    expect(Object.keys(projected)).toEqual(["schemas", "id", "displayName", "meta"]);
    expect(projectScimJson(json, { excludedAttributes: "id,Members" })).toHaveProperty("id", "grp_1");
  });

  it("projectScimJson - keeps only the attributes asked for, in any case or with the schema's URN", () => {
    const json = toScimUserJson(storedUser(), { baseUrl: BASE_URL });
    const projected = projectScimJson(json, {
      attributes: "USERNAME, name.givenName,urn:ietf:params:scim:schemas:core:2.0:User:active",
    });
    expect(Object.keys(projected).sort()).toEqual(["active", "id", "name", "schemas", "userName"]);
    expect(projectScimJson(json, {})).toEqual(json);
  });
});
