import { createMemoryStores } from "@portcullis/store-memory";
import { expectNoteRefused, expectNoteServed, guardTestFixture } from "@portcullis/testing";
import express from "express";
import { describe, expect, it } from "vitest";
import { createAuthRouter, requireAuth } from "./index.js";
import { listenForTests } from "./test-server.js";

const guard = guardTestFixture();

/** An app with the auth routes and host routes guarded both ways; Ada registered, her access token. */
async function start() {
  const { auth, accessToken, userId } = await guard.signIn(
    "require-auth-secret-ujCs6MSsUpe-AwbE-oT0T4R6zXnI2ihPtXcTlLosMLU",
    createMemoryStores(),
  );
  const app = express().use(createAuthRouter(auth));
  const ran: string[] = [];
  // Given the handler, requireAuth types `req.auth` as a Principal; route params as its first type argument.
  app.get(
    "/notes/:noteId",
    requireAuth<{ noteId: string }>(auth, (req, res) => {
      const userId: string = req.auth.userId;
      const noteId: string = req.params.noteId;
      ran.push(noteId);
      res.json({ userId, noteId });
    }),
  );
  // As middleware, the handlers after it keep Express's optional `req.auth`.
  app.get("/middleware", requireAuth(auth), (req, res) => {
    // @ts-expect-error req.auth is optional after the middleware form
    const userId: string = req.auth.userId;
    res.json({ userId });
  });
  app.get(
    "/fails",
    requireAuth(auth, async () => {
      throw new Error("host bug");
    }),
  );
  app.use((_error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    res.status(500).json({ handled: true });
  });
  return { get: guard.serve(await listenForTests(app)), ran, accessToken, userId };
}

describe("requireAuth", () => {
  it("requireAuth(auth, handler) - runs the handler with req.auth set when signed in", async () => {
    await expectNoteServed(await start());
  });

  it("requireAuth(auth, handler) - signed out: 401 AUTHENTICATION_REQUIRED and the handler never runs", async () => {
    await expectNoteRefused(await start(), ["not-a-token"]);
  });

  it("requireAuth(auth, handler) - an error the handler throws goes to Express's error handlers", async () => {
    const { get, accessToken } = await start();
    const reply = await get("/fails", accessToken);
    expect(reply.status).toBe(500);
    expect(await reply.json()).toEqual({ handled: true });
  });

  it("requireAuth(auth) - as middleware it still sets req.auth for the handlers after it", async () => {
    const { get, accessToken, userId } = await start();
    expect(await (await get("/middleware", accessToken)).json()).toEqual({ userId });
    expect((await get("/middleware")).status).toBe(401);
  });
});
