import { createAuthRouter } from "@portcullis/adapter-express";
import type { Auth } from "@portcullis/core";
import express from "express";
import { addHostRoutes, listenForTests } from "../../adapter-express/src/test-server.js";

/**
 * Test support (not part of the package's exports): the auth routes of `auth` through Express on
 * 127.0.0.1, with the adapter suite's host routes (`/host/protected` behind `requireAuth`,
 * `/host/projects` behind `requirePermission`), as adapter-express's own tests serve them.
 */
export function startExpress(auth: Auth) {
  return listenForTests(addHostRoutes(express().use(createAuthRouter(auth)), auth));
}
