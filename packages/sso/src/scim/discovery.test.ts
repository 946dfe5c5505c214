import { describe, expect, it } from "vitest";
import {
  scimResourceTypeById,
  scimResourceTypes,
  scimSchemaById,
  scimSchemas,
  scimServiceProviderConfig,
} from "./discovery.js";
import { BASE_URL } from "./test-support.js";

describe("scimServiceProviderConfig", () => {
  it("scimServiceProviderConfig - says what the server supports, located under the base URL", () => {
    const config = scimServiceProviderConfig(`${BASE_URL}/`, { maxResults: 50 });
    expect(config).toMatchObject({
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig"],
      patch: { supported: true },
      bulk: { supported: false },
      filter: { supported: true, maxResults: 50 },
      changePassword: { supported: false },
      sort: { supported: false },
      etag: { supported: false },
      meta: { resourceType: "ServiceProviderConfig", location: `${BASE_URL}/ServiceProviderConfig` },
    });
    expect(config.authenticationSchemes).toEqual([
      expect.objectContaining({ type: "oauthbearertoken", primary: true }),
    ]);
    expect(scimServiceProviderConfig(BASE_URL).filter.maxResults).toBe(100);
  });
});

describe("scimSchemas", () => {
  it("scimSchemas - lists the User and Group schemas with their attributes and locations", () => {
    const list = scimSchemas(BASE_URL);
    expect(list).toMatchObject({ totalResults: 2, itemsPerPage: 2, startIndex: 1 });
    const [user, group] = list.Resources;
    expect(user?.meta.location).toBe(`${BASE_URL}/Schemas/urn:ietf:params:scim:schemas:core:2.0:User`);
    expect(user?.attributes.map((attribute) => attribute.name)).toEqual([
      "userName",
      "name",
      "displayName",
      "active",
      "emails",
      "groups",
    ]);
    expect(user?.attributes[0]).toMatchObject({ required: true, caseExact: false, uniqueness: "server" });
    expect(user?.attributes.find((attribute) => attribute.name === "groups")?.mutability).toBe("readOnly");
    expect(group).toMatchObject({ id: "urn:ietf:params:scim:schemas:core:2.0:Group", name: "Group" });
    expect(group?.attributes.map((attribute) => attribute.name)).toEqual(["displayName", "members"]);
  });

  it("scimSchemaById - finds a schema by its URN in any case, or null", () => {
    expect(scimSchemaById(BASE_URL, "urn:ietf:params:scim:schemas:core:2.0:group")?.name).toBe("Group");
    expect(scimSchemaById(BASE_URL, "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User")).toBeNull();
  });
});

describe("scimResourceTypes", () => {
  it("scimResourceTypes - lists Users and Groups with their schemas and locations", () => {
    expect(scimResourceTypes(BASE_URL).Resources).toEqual([
      {
        schemas: ["urn:ietf:params:scim:schemas:core:2.0:ResourceType"],
        id: "User",
        name: "User",
        endpoint: "/Users",
        description: "User Account",
        schema: "urn:ietf:params:scim:schemas:core:2.0:User",
        meta: { resourceType: "ResourceType", location: `${BASE_URL}/ResourceTypes/User` },
      },
      {
        schemas: ["urn:ietf:params:scim:schemas:core:2.0:ResourceType"],
        id: "Group",
        name: "Group",
        endpoint: "/Groups",
        description: "Group",
        schema: "urn:ietf:params:scim:schemas:core:2.0:Group",
        meta: { resourceType: "ResourceType", location: `${BASE_URL}/ResourceTypes/Group` },
      },
    ]);
  });

  it("scimResourceTypeById - finds User or Group in any case, or null", () => {
    expect(scimResourceTypeById(BASE_URL, "user")?.endpoint).toBe("/Users");
    expect(scimResourceTypeById(BASE_URL, "Device")).toBeNull();
  });
});
