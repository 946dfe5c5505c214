import { createAuth, httpHandlerFor } from "@portcullis/core";
import { createMemoryStores } from "@portcullis/store-memory";
import { countHandlerBuilds } from "@portcullis/testing";
import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { portcullis, setSessionCookies, withAuth } from "./index.js";

describe("httpHandlerFor", () => {
  it("httpHandlerFor - two registrations, portcullisAuthenticate, withAuth and setSessionCookies share one handler, built once", async () => {
    const { auth, builds } = countHandlerBuilds(
      createAuth({
        secret: "shared-handler-secret-Vd1vQm3hR8kP2tXz7LwN5yBq0cJfGs4uEaT9iOpK6nM",
        stores: createMemoryStores(),
        email: { enabled: false },
      }),
    );
    // Two apps: the plugin decorates its instance, so it registers once per app.
    const [first, second] = [Fastify(), Fastify()];
    await first.register(portcullis, { auth });
    await second.register(portcullis, { auth });
    first.get("/host/protected", { preHandler: first.portcullisAuthenticate }, async () => ({ ok: true }));
    first.get(
      "/host/alone",
      withAuth(async () => ({ ok: true })),
    );
    first.get("/host/cookies", async (_request, reply) =>
      setSessionCookies(auth, reply, { accessToken: "a", refreshToken: "r" }).send(),
    );
    try {
      const codes = await Promise.all(
        [
          first.inject("/api/auth/me"),
          second.inject("/api/auth/me"),
          first.inject("/host/protected"),
          first.inject("/host/alone"),
        ].map(async (pending) => {
          const reply = await pending;
          return `${reply.statusCode} ${reply.headers["auth-error-code"]}`;
        }),
      );
      expect(codes).toEqual(Array(4).fill("401 AUTHENTICATION_REQUIRED"));
      const cookies = (await first.inject("/host/cookies")).cookies.map((cookie) => cookie.name);
      expect(cookies).toEqual(["access_token", "refresh_token", "two_factor_authentication_token"]);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
    expect(builds()).toBe(1);
    expect(httpHandlerFor(auth)).toBe(httpHandlerFor(auth));
    expect(builds()).toBe(1);
  });
});
