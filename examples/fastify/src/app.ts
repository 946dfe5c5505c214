import { portcullis, requireOAuth, requirePermission } from "@portcullis/adapter-fastify";
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
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";

const send = (reply: FastifyReply, page: Page) =>
  reply.code(page.status).type(page.contentType).send(page.body);

/** The Fastify example host app: the auth routes, one protected route, the UI and the dev outbox. */
export async function createApp(auth: Auth, outbox: OutboxMailer | undefined): Promise<FastifyInstance> {
  const app = Fastify();
  await app.register(portcullis, { auth });

  app.get("/api/hello", { preHandler: app.portcullisAuthenticate }, async (request) => ({
    message: `Hello, user ${request.auth?.userId}`,
    sessionId: request.auth?.sessionId,
  }));
  // The demo routes of organizations: what the member's role in the active organization allows.
  const project = async (request: FastifyRequest) =>
    request.oauth
      ? oauthProjectsAnswer(request.oauth)
      : { organizationId: request.organization?.organizationId };
  // With the OAuth provider on, an app's access token for the example's API (`aud` <appOrigin>/api)
  // with the scope projects:read reads too.
  const readPermission = requirePermission(auth, "project:read");
  const readOAuth = auth.oauthProvider ? requireOAuth(auth, projectsTokenCheck(auth)) : undefined;
  const canRead = async function (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
    if (readOAuth && takesOAuthToken(auth, request.headers.authorization)) return readOAuth(request, reply);
    return readPermission.call(this, request, reply);
  };
  app.get("/api/projects", { preHandler: canRead }, project);
  app.post("/api/projects", { preHandler: requirePermission(auth, "project:write") }, project);

  if (outbox) {
    app.get("/dev/outbox", async (request, reply) =>
      send(reply, outboxListPage(outbox, request.headers.accept)),
    );
    app.get<{ Params: { id: string } }>("/dev/outbox/:id", async (request, reply) =>
      send(reply, outboxEntryPage(outbox, request.params.id)),
    );
  }

  app.post("/ui/qr", { bodyLimit: 4096 }, async (request, reply) =>
    send(reply, await qrCodePage(request.body)),
  );
  const assets = uiAssets();
  for (const [path, page] of assets) app.get(path, async (_request, reply) => send(reply, page));
  return app;
}
