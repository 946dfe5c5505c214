import { createArgon2Hasher, createAuth } from "@portcullis/core";
import { createMemoryStores } from "@portcullis/store-memory";
import express from "express";
import { afterEach, describe, expect, it } from "vitest";
import { createAuthRouter, requireAuth } from "./index.js";
import { listenForTests } from "./test-server.js";

const credentials = { email: "ada@example.test", password: "correct horse battery staple" };
const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
});

/** An app with the auth routes and host routes guarded both ways; Ada registered, her access token. */
async function start() {
  const auth = createAuth({
    secret: "require-auth-secret-ujCs6MSsUpe-AwbE-oT0T4R6zXnI2ihPtXcTlLosMLU",
    stores: createMemoryStores(),
    passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
    email: { enabled: false },
  });
  await auth.register({}, credentials);
  const login = await auth.login({}, credentials);
  if (login.twoFactorRequired) throw new Error("unexpected 2FA");
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
  const server = await listenForTests(app);
  closing.push(server.close);
  const get = (path: string, token?: string) =>
    fetch(`${server.baseUrl}${path}`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  return { get, ran, accessToken: login.accessToken, userId: login.user.id };
}

describe("requireAuth", () => {
  it("requireAuth(auth, handler) - runs the handler with req.auth set when signed in", async () => {
    const { get, ran, accessToken, userId } = await start();
    const reply = await get("/notes/n1", accessToken);
    expect(reply.status).toBe(200);
    expect(await reply.json()).toEqual({ userId, noteId: "n1" });
    expect(ran).toEqual(["n1"]);
  });

  it("requireAuth(auth, handler) - signed out: 401 AUTHENTICATION_REQUIRED and the handler never runs", async () => {
    const { get, ran } = await start();
    const reply = await get("/notes/n1");
    expect(reply.status).toBe(401);
    expect(((await reply.json()) as { code: string }).code).toBe("AUTHENTICATION_REQUIRED");
    expect((await get("/notes/n1", "not-a-token")).status).toBe(401);
    expect(ran).toEqual([]);
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
