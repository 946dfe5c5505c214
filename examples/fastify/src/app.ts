import { portcullis, requirePermission } from "@portcullis/adapter-fastify";
import type { Auth, OutboxMailer } from "@portcullis/core";
import { outboxEntryPage, outboxListPage, type Page, qrCodePage, uiAssets } from "example-shared";
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
  const project = async (request: FastifyRequest) => ({
    organizationId: request.organization?.organizationId,
  });
  app.get("/api/projects", { preHandler: requirePermission(auth, "project:read") }, project);
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
