import type { HttpBindings } from "@hono/node-server";
import {
  authenticateRequest,
  createFetchHandler,
  requireOAuth,
  requirePermission,
} from "@portcullis/adapter-fetch";
import type { Auth, OutboxMailer } from "@portcullis/core";
import {
  oauthProjectsAnswer,
  outboxEntryPage,
  outboxListPage,
  type Page,
  projectsTokenCheck,
  qrCodePage,
  takesOAuthToken,
  uiAssets,
} from "example-shared";
import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";

type Env = { Bindings: HttpBindings };

const send = (c: Context, page: Page) =>
  c.body(page.body, page.status as 200, { "content-type": page.contentType });

/** The client of a request on `@hono/node-server` (on Node, Bun and Deno alike): its socket's address. */
export const clientOf = (c: Context<Env>) => ({ remoteAddress: c.env?.incoming?.socket?.remoteAddress });

/** The Hono example host app: the auth routes, one protected route, the UI and the dev outbox. */
export function createApp(auth: Auth, outbox: OutboxMailer | undefined): Hono<Env> {
  const app = new Hono<Env>();
  const handler = createFetchHandler(auth);
  const { basePath } = auth.options;
  app.all(basePath, (c) => handler(c.req.raw, clientOf(c)));
  app.all(`${basePath}/*`, (c) => handler(c.req.raw, clientOf(c)));

  app.get("/api/hello", async (c) => {
    const result = await authenticateRequest(auth, c.req.raw, clientOf(c));
    if (result.response) return result.response;
    const { userId, sessionId } = result.principal;
    return c.json({ message: `Hello, user ${userId}`, sessionId });
  });
  // The demo routes of organizations: what the member's role in the active organization allows.
  for (const [method, permission] of [
    ["GET", "project:read"],
    ["POST", "project:write"],
  ] as const)
    app.on(method, "/api/projects", async (c) => {
      // With the OAuth provider on, an app's access token for the example's API (`aud`
      // <appOrigin>/api) with the scope projects:read reads too.
      if (method === "GET" && takesOAuthToken(auth, c.req.header("authorization"))) {
        const oauth = await requireOAuth(auth, projectsTokenCheck(auth), c.req.raw);
        return oauth.response ?? c.json(oauthProjectsAnswer(oauth.token));
      }
      const result = await requirePermission(auth, permission, c.req.raw, clientOf(c));
      return result.response ?? c.json({ organizationId: result.organization.organizationId });
    });

  if (outbox) {
    app.get("/dev/outbox", (c) => send(c, outboxListPage(outbox, c.req.header("accept"))));
    app.get("/dev/outbox/:id", (c) => send(c, outboxEntryPage(outbox, c.req.param("id"))));
  }

  app.post("/ui/qr", bodyLimit({ maxSize: 4096 }), async (c) => {
    const body = await c.req.json().catch(() => undefined);
    return send(c, await qrCodePage(body));
  });
  for (const [path, page] of uiAssets()) app.get(path, (c) => send(c, page));
  return app;
}
