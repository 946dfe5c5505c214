import { createAuthRouter } from "@portcullis/adapter-express";
import type { Auth, Clock } from "@portcullis/core";
import { createMemoryStores } from "@portcullis/store-memory";
import express from "express";
import type { Redis } from "ioredis";
import { addHostRoutes, listenForTests } from "../../adapter-express/src/test-server.js";
import { createRedisStores } from "./redis-stores.js";

/**
 * Test support (not part of the package's exports): the auth routes of `auth` through Express on
 * 127.0.0.1, with the adapter suite's host routes (`/host/protected` behind `requireAuth`,
 * `/host/projects` behind `requirePermission`), as adapter-express's own tests serve them.
 */
export function startExpress(auth: Auth) {
  return listenForTests(addHostRoutes(express().use(createAuthRouter(auth)), auth));
}

/**
 * The adapter suites' `createStores` for Redis: users and organizations in memory on the suite's
 * clock (Redis keeps none), every other store on `file.client` under a new prefix of `file`'s.
 */
export const redisStoresWithMemoryUsers =
  (file: { readonly client: Redis; prefix(): string }) => (clock: Clock) => {
    const memory = createMemoryStores({ clock });
    return {
      users: memory.users,
      organizations: memory.organizations,
      ...createRedisStores({ client: file.client, keyPrefix: file.prefix() }),
    };
  };
