import { createArgon2Hasher, createAuth } from "@portcullis/core";
import { createMemoryStores } from "@portcullis/store-memory";
import Fastify from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { portcullis, withAuth } from "./index.js";
import { listenForTests } from "./test-server.js";

const credentials = { email: "ada@example.test", password: "correct horse battery staple" };
const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
});

/** An app with host routes wrapped in `withAuth`, with and without the preHandler; Ada's access token. */
async function start() {
  const auth = createAuth({
    secret: "with-auth-secret-1lUjomHUxJr-sRxyykYaf5jE6fvohjiOvKrxC62k1to",
    stores: createMemoryStores(),
    passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
    email: { enabled: false },
  });
  await auth.register({}, credentials);
  const login = await auth.login({}, credentials);
  if (login.twoFactorRequired) throw new Error("unexpected 2FA");
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
  const server = await listenForTests(app);
  closing.push(server.close);
  const get = (path: string, token?: string) =>
    fetch(`${server.baseUrl}${path}`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  return { get, ran, accessToken: login.accessToken, userId: login.user.id };
}

describe("withAuth", () => {
  it("withAuth - after portcullisAuthenticate the handler runs with request.auth set", async () => {
    const { get, ran, accessToken, userId } = await start();
    const reply = await get("/notes/n1", accessToken);
    expect(reply.status).toBe(200);
    expect(await reply.json()).toEqual({ userId, noteId: "n1" });
    expect(ran).toEqual(["n1"]);
  });

  it("withAuth - signed out: 401 AUTHENTICATION_REQUIRED and the handler never runs", async () => {
    const { get, ran } = await start();
    const reply = await get("/notes/n1");
    expect(reply.status).toBe(401);
    expect(((await reply.json()) as { code: string }).code).toBe("AUTHENTICATION_REQUIRED");
    expect(ran).toEqual([]);
  });

  it("withAuth - without the preHandler it authenticates the request itself", async () => {
    const { get, accessToken, userId } = await start();
    expect(await (await get("/alone", accessToken)).json()).toEqual({ userId });
    const signedOut = await get("/alone");
    expect(signedOut.status).toBe(401);
    expect(((await signedOut.json()) as { code: string }).code).toBe("AUTHENTICATION_REQUIRED");
  });
});
