import { createAuthRouter, requireAuth, requireOAuth, requirePermission } from "@portcullis/adapter-express";
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
import express, { type Express, type Response } from "express";

const send = (res: Response, page: Page) => res.status(page.status).type(page.contentType).send(page.body);

/** The Express example host app: the auth routes, one protected route, the UI and the dev outbox. */
export function createApp(auth: Auth, outbox: OutboxMailer | undefined): Express {
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", false);
  // No ETag on the JSON API: per-user answers, never cached by a browser (and a hash per answer).
  app.set("etag", false);
  app.use(createAuthRouter(auth));

  app.get("/api/hello", requireAuth(auth), (req, res) => {
    res.json({ message: `Hello, user ${req.auth?.userId}`, sessionId: req.auth?.sessionId });
  });
  // With the OAuth provider on, an app's access token for the example's API (`aud` <appOrigin>/api)
  // with the scope projects:read reads too; any other request goes on to the next route.
  if (auth.oauthProvider)
    app.get(
      "/api/projects",
      (req, _res, next) => next(takesOAuthToken(auth, req.headers.authorization) ? undefined : "route"),
      requireOAuth(auth, projectsTokenCheck(auth)),
      (req, res) => {
        res.json(req.oauth ? oauthProjectsAnswer(req.oauth) : {});
      },
    );
  // The demo routes of organizations: what the member's role in the active organization allows.
  app.get("/api/projects", requirePermission(auth, "project:read"), (req, res) => {
    res.json({ organizationId: req.organization?.organizationId });
  });
  app.post("/api/projects", requirePermission(auth, "project:write"), (req, res) => {
    res.json({ organizationId: req.organization?.organizationId });
  });

  if (outbox) {
    app.get("/dev/outbox", (req, res) => send(res, outboxListPage(outbox, req.headers.accept)));
    app.get("/dev/outbox/:id", (req, res) => send(res, outboxEntryPage(outbox, req.params.id)));
  }

  app.post("/ui/qr", express.json({ limit: "4kb" }), async (req, res) => {
    send(res, await qrCodePage(req.body));
  });
  for (const [path, page] of uiAssets()) app.get(path, (_req, res) => send(res, page));
  return app;
}
