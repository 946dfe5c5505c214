import { createAuth, httpHandlerFor } from "@portcullis/core";
import { createMemoryStores } from "@portcullis/store-memory";
import { countHandlerBuilds } from "@portcullis/testing";
import express from "express";
import { describe, expect, it } from "vitest";
import { createAuthRouter, requireAuth, setSessionCookies } from "./index.js";
import { listenForTests } from "./test-server.js";

describe("httpHandlerFor", () => {
  it("httpHandlerFor - two routers, requireAuth and setSessionCookies share one handler, built once", async () => {
    const { auth, builds } = countHandlerBuilds(
      createAuth({
        secret: "shared-handler-secret-Vd1vQm3hR8kP2tXz7LwN5yBq0cJfGs4uEaT9iOpK6nM",
        stores: createMemoryStores(),
        email: { enabled: false },
      }),
    );
    // Two apps (the router reads `originalUrl`, so one app would answer from its first router).
    const app = express().use(createAuthRouter(auth));
    app.get("/host/protected", requireAuth(auth), (_req, res) => {
      res.json({ ok: true });
    });
    app.get("/host/cookies", (_req, res) => {
      setSessionCookies(auth, res, { accessToken: "a", refreshToken: "r" });
      res.end();
    });
    const servers = [await listenForTests(app), await listenForTests(express().use(createAuthRouter(auth)))];
    try {
      const [first, second] = servers.map((server) => server.baseUrl);
      const codes = await Promise.all(
        [`${first}/api/auth/me`, `${second}/api/auth/me`, `${first}/host/protected`].map(async (url) => {
          const reply = await fetch(url);
          return `${reply.status} ${reply.headers.get("auth-error-code")}`;
        }),
      );
      expect(codes).toEqual(Array(3).fill("401 AUTHENTICATION_REQUIRED"));
      const cookies = (await fetch(`${first}/host/cookies`)).headers.getSetCookie();
      expect(cookies.map((cookie) => cookie.slice(0, cookie.indexOf("=")))).toEqual([
        "access_token",
        "refresh_token",
        "two_factor_authentication_token",
      ]);
    } finally {
      for (const server of servers) await server.close();
    }
    expect(builds()).toBe(1);
    expect(httpHandlerFor(auth)).toBe(httpHandlerFor(auth));
    expect(builds()).toBe(1);
  });
});
