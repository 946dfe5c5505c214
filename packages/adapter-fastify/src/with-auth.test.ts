import { createMemoryStores } from "@portcullis/store-memory";
import {
  expectAuthenticationRequired,
  expectNoteRefused,
  expectNoteServed,
  guardTestFixture,
} from "@portcullis/testing";
import Fastify from "fastify";
import { describe, expect, it } from "vitest";
import { portcullis, withAuth } from "./index.js";
import { listenForTests } from "./test-server.js";

const guard = guardTestFixture();

/** An app with host routes wrapped in `withAuth`, with and without the preHandler; Ada's access token. */
async function start() {
  const { auth, accessToken, userId } = await guard.signIn(
    "with-auth-secret-1lUjomHUxJr-sRxyykYaf5jE6fvohjiOvKrxC62k1to",
    createMemoryStores(),
  );
  const app = Fastify({ forceCloseConnections: true });
  await app.register(portcullis, { auth });
  const ran: string[] = [];
  // `request.auth` is a Principal inside withAuth; route generics (Params) still type the request.
  app.get<{ Params: { noteId: string } }>(
    "/notes/:noteId",
    { preHandler: app.portcullisAuthenticate },
    withAuth(async (request) => {
      const userId: string = request.auth.userId;
      const noteId: string = request.params.noteId;
      ran.push(noteId);
      return { userId, noteId };
    }),
  );
  // Without the preHandler, withAuth authenticates by itself.
  app.get(
    "/alone",
    withAuth(async (request) => ({ userId: request.auth.userId })),
  );
  app.get("/plain", { preHandler: app.portcullisAuthenticate }, async (request) => {
    // @ts-expect-error outside withAuth, request.auth stays `Principal | null` in Fastify's types
    const userId: string = request.auth.userId;
    return { userId };
  });
  return { get: guard.serve(await listenForTests(app)), ran, accessToken, userId };
}

describe("withAuth", () => {
  it("withAuth - after portcullisAuthenticate the handler runs with request.auth set", async () => {
    await expectNoteServed(await start());
  });

  it("withAuth - signed out: 401 AUTHENTICATION_REQUIRED and the handler never runs", async () => {
    await expectNoteRefused(await start());
  });

  it("withAuth - without the preHandler it authenticates the request itself", async () => {
    const { get, accessToken, userId } = await start();
    expect(await (await get("/alone", accessToken)).json()).toEqual({ userId });
    await expectAuthenticationRequired(await get("/alone"));
  });
});
