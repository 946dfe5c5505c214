import { describe, expect, it } from "vitest";
import { parseAuthOptions, STORE_METHODS } from "../options/options.js";
import { MANAGEMENT_PERMISSIONS } from "../options/organization-options.js";
import { TEST_SECRET } from "../test-support.js";
import { assertMayChange, assertMayGrant, permissionsOfRole } from "./roles.js";

const options = {
  permissions: ["project:read", "project:write"],
  memberPermissions: ["project:read"],
  maxPerUser: 10,
};

const denied = (run: () => void) => {
  try {
    run();
    return "OK";
  } catch (error) {
    return (error as { code?: string }).code;
  }
};

describe("roles", () => {
  it("permissionsOfRole - owner and admin hold every declared and management permission; member the member ones", () => {
    const all = ["project:read", "project:write", ...MANAGEMENT_PERMISSIONS];
    expect(permissionsOfRole(options, "owner", null)).toEqual(all);
    expect(permissionsOfRole(options, "admin", null)).toEqual(all);
    expect(permissionsOfRole(options, "member", null)).toEqual(["project:read"]);
  });

  it("permissionsOfRole - a custom role grants its stored permissions that are still known; a gone one nothing", () => {
    expect(permissionsOfRole(options, "lead", ["project:write", "project:gone", "member:invite"])).toEqual([
      "project:write",
      "member:invite",
    ]);
    expect(permissionsOfRole(options, "lead", null)).toEqual([]);
  });

  it("assertMayGrant - only owners grant owner; nobody grants a permission they lack", () => {
    const admin = { role: "admin", permissions: permissionsOfRole(options, "admin", null) };
    const lead = { role: "lead", permissions: ["project:read", "member:update-role"] };
    expect(denied(() => assertMayGrant(admin, "owner", permissionsOfRole(options, "owner", null)))).toBe(
      "PERMISSION_DENIED",
    );
    expect(denied(() => assertMayGrant(admin, "admin", permissionsOfRole(options, "admin", null)))).toBe(
      "OK",
    );
    expect(denied(() => assertMayGrant(lead, "member", ["project:read"]))).toBe("OK");
    expect(denied(() => assertMayGrant(lead, "writer", ["project:write"]))).toBe("PERMISSION_DENIED");
  });

  it("assertMayChange - only owners change an owner; nobody changes a member holding more than they do", () => {
    const admin = { role: "admin", permissions: permissionsOfRole(options, "admin", null) };
    const lead = { role: "lead", permissions: ["project:read", "member:remove"] };
    expect(denied(() => assertMayChange(admin, "owner", permissionsOfRole(options, "owner", null)))).toBe(
      "PERMISSION_DENIED",
    );
    expect(denied(() => assertMayChange(lead, "admin", admin.permissions))).toBe("PERMISSION_DENIED");
    expect(denied(() => assertMayChange(lead, "member", ["project:read"]))).toBe("OK");
  });
});

describe("organizations option", () => {
  const port = (methods: readonly string[]) => Object.fromEntries(methods.map((name) => [name, () => {}]));
  const stores = (extra: Record<string, unknown> = {}) =>
    ({
      users: port(STORE_METHODS.users),
      cooldowns: port(STORE_METHODS.cooldowns),
      sessions: { ...port(STORE_METHODS.sessions), setActiveOrganization: () => {} },
      allowlist: port(STORE_METHODS.allowlist),
      singleUseTokens: port(STORE_METHODS.singleUseTokens),
      organizations: port(STORE_METHODS.organizations),
      ...extra,
    }) as never;
  const parse = (organizations: unknown, extra?: Record<string, unknown>) =>
    parseAuthOptions({
      secret: TEST_SECRET,
      stores: stores(extra),
      email: { enabled: false },
      organizations,
    } as never);

  it("parseAuthOptions - organizations get their defaults", () => {
    expect(parse({ permissions: ["project:read"] }).organizations).toEqual({
      permissions: ["project:read"],
      memberPermissions: [],
      maxPerUser: 100,
    });
  });

  it("parseAuthOptions - refuses bad names, built-in management names and member permissions not declared", () => {
    expect(() => parse({ permissions: ["Project Read"] })).toThrow('"organizations.permissions.0"');
    expect(() => parse({ permissions: ["member:invite"] })).toThrow('"organizations.permissions.0"');
    expect(() => parse({ permissions: ["a"], memberPermissions: ["b"] })).toThrow(
      '"organizations.memberPermissions"',
    );
  });

  it("parseAuthOptions - organizations need stores.organizations and sessions with setActiveOrganization", () => {
    expect(() => parse({ permissions: [] }, { organizations: undefined })).toThrow('"stores.organizations"');
    expect(() => parse({ permissions: [] }, { sessions: port(STORE_METHODS.sessions) })).toThrow(
      '"stores.sessions.setActiveOrganization"',
    );
  });
});
