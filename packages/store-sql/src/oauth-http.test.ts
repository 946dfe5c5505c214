import { createAuthRouter } from "@portcullis/adapter-express";
import type { Auth } from "@portcullis/core";
import { createOAuthProvider } from "@portcullis/oauth-provider";
import { type OAuthProviderSuiteOptions, runOAuthProviderAdapterSuite } from "@portcullis/testing";
import express from "express";
import { afterAll } from "vitest";
import { addHostRoutes, listenForTests } from "../../adapter-express/src/test-server.js";
import { freshSqlStores, postgresSchemaForFile, sqliteDb } from "./test-databases.js";

// The OAuth provider through Express with every store in SQL (each test's own tables), its
// clients, grants, consents and signing keys among them: on PostgreSQL, then on SQLite. 20
// concurrent redemptions of one code and 20 concurrent refreshes meet each database's locking.

/** The auth routes and the adapter suite's host routes (`/host/reports` behind `requireOAuth`). */
const start = (auth: Auth) => listenForTests(addHostRoutes(express().use(createAuthRouter(auth)), auth));

const oauthProvider: OAuthProviderSuiteOptions["oauthProvider"] = (setup) => createOAuthProvider(setup);

const postgres = postgresSchemaForFile();

runOAuthProviderAdapterSuite({
  name: "express + postgres",
  start,
  oauthProvider,
  createStores: (clock) => freshSqlStores(postgres.db, clock),
});

const sqlite = sqliteDb();
afterAll(() => sqlite.destroy());

runOAuthProviderAdapterSuite({
  name: "express + sqlite",
  start,
  oauthProvider,
  createStores: (clock) => freshSqlStores(sqlite, clock),
});
