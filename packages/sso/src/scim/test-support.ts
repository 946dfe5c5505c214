/**
 * Fixtures of the SCIM tests. Not part of the package: only `index.ts` is built, and nothing but
 * `*.test.ts` files imports this one.
 */
import { expect } from "vitest";
import type { ScimErrorBody, ScimErrorType, ScimResult } from "./errors.js";
import type { ScimGroup, ScimUser } from "./resources.js";

/** 2024-01-01T00:00:00Z. */
export const T0 = Date.UTC(2024, 0, 1);

export const BASE_URL = "https://app.example.com/api/auth/scim/v2";

export function storedUser(overrides: Partial<ScimUser> = {}): ScimUser {
  return {
    id: "usr_1",
    externalId: "00ujl29u0le5T6Aj10h7",
    userName: "Test.User@okta.local",
    active: true,
    name: { givenName: "Test", familyName: "User", formatted: null },
    displayName: "Test User",
    emails: [{ value: "test.user@okta.local", type: "work", primary: true }],
    groups: [],
    created: T0,
    lastModified: T0,
    ...overrides,
  };
}

export function storedGroup(overrides: Partial<ScimGroup> = {}): ScimGroup {
  return {
    id: "grp_1",
    externalId: null,
    displayName: "Engineering",
    members: [],
    created: T0,
    lastModified: T0,
    ...overrides,
  };
}

/** The value of a successful result (the test fails with the error otherwise). */
export function successOf<T>(result: ScimResult<T>): T {
  if (!result.ok) expect.fail(`expected success, got ${JSON.stringify(result.error)}`);
  return result.value;
}

/** The error of a failed result, checked to be a 400-class SCIM error of `scimType`. */
export function errorOf(result: ScimResult<unknown>, scimType: ScimErrorType): ScimErrorBody {
  if (result.ok) expect.fail(`expected ${scimType}, got ${JSON.stringify(result.value)}`);
  expect(result.error).toMatchObject({ schemas: ["urn:ietf:params:scim:api:messages:2.0:Error"], scimType });
  expect(typeof result.error.detail).toBe("string");
  return result.error;
}

/** A PATCH body with these operations. */
export function patchBody(...Operations: unknown[]): unknown {
  return { schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations };
}
