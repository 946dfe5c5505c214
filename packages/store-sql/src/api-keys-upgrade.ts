import { expect } from "vitest";
import type { AnyKysely } from "./context.js";
import { migrationsAfter } from "./migration-names.js";
import { storesAtMigration } from "./test-upgrade.js";

/**
 * Test support (not part of the package's exports), run on every dialect: a database at 0013
 * with an organization is migrated to 0014; keys of the user and of the organization can be
 * created and read, and deleting the organization deletes its keys (not the user's); migrated back
 * down to 0013, the organization's tables stay and the keys' table is gone.
 */
export async function checkApiKeysUpgrade(db: AnyKysely): Promise<void> {
  const at = await storesAtMigration(db, "k", "0013_organizations");
  const { organizations, apiKeys } = at.stores;
  const organization = { id: "o1", name: "Acme", slug: "acme", createdAt: 1 };
  const owner = { organizationId: "o1", userId: "u1", role: "owner", joinedAt: 1 };
  expect(await organizations.createOrganization(organization, owner)).toBe("created");
  expect(await at.upgrade()).toEqual(migrationsAfter("0013_organizations"));
  const key = (id: string, organizationId: string | null) => ({
    id,
    lookupId: `lookup-${id}`,
    keyHash: `hash-${id}`,
    name: `Key ${id}`,
    start: "pc_abcdefgh",
    userId: "u1",
    organizationId,
    permissions: organizationId === null ? null : ["project:read"],
    createdAt: 1,
    expiresAt: null,
    lastUsedAt: null,
  });
  await apiKeys.createApiKey(key("mine", null), { maxPerOwner: 100 });
  await apiKeys.createApiKey(key("acme", "o1"), { maxPerOwner: 100 });
  expect(await apiKeys.findApiKeyByLookupId("lookup-acme")).toEqual(key("acme", "o1"));
  expect(await organizations.deleteOrganization("o1")).toBe(true);
  expect(await apiKeys.findApiKey("acme")).toBeNull();
  expect(await apiKeys.listApiKeys({ userId: "u1", organizationId: null })).toEqual([key("mine", null)]);
  // And back down: the keys' table goes, the organization store's stay.
  await at.downgrade();
  expect(await organizations.createOrganization(organization, owner)).toBe("created");
  await expect(apiKeys.findApiKey("mine")).rejects.toThrow();
}
