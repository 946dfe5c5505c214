import { type Auth, createHttpHandler, type HttpResponse, type Principal } from "@portcullis/core";
import type { FastifyPluginAsync, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from "fastify";
import fp from "fastify-plugin";

declare module "fastify" {
  interface FastifyRequest {
    /** Set by `portcullisAuthenticate`: the authenticated user and session. */
    auth: Principal | null;
  }
  interface FastifyInstance {
    /** preHandler for the host's own routes: sets `request.auth` or answers with the 401 codes. */
    portcullisAuthenticate: preHandlerAsyncHookHandler;
  }
}

export interface PortcullisPluginOptions {
  auth: Auth;
}

function send(reply: FastifyReply, response: HttpResponse): FastifyReply {
  reply.code(response.status).headers(response.headers);
  if (response.cookies.length > 0) reply.header("set-cookie", response.cookies);
  return reply.send(response.body ?? undefined);
}

const plugin: FastifyPluginAsync<PortcullisPluginOptions> = async (fastify, { auth }) => {
  const handler = createHttpHandler(auth);

  fastify.decorateRequest("auth", null);
  fastify.decorate("portcullisAuthenticate", async (request: FastifyRequest, reply: FastifyReply) => {
    const result = await handler.authenticate({
      method: request.method,
      url: request.url,
      headers: request.headers,
      ip: request.ip,
    });
    if (result.response) return send(reply, result.response);
    request.auth = result.principal;
  });

  // The auth routes live in their own context: its catch-all parser hands the raw stream to the
  // core (which applies the 413/415/400 rules) without touching the host's parsers.
  await fastify.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", (_request, payload, done) => done(null, payload));
    const route = async (request: FastifyRequest, reply: FastifyReply) => {
      const response = await handler.handle({
        method: request.method,
        url: request.url,
        headers: request.headers,
        body: request.body as AsyncIterable<Uint8Array> | undefined,
        ip: request.ip,
      });
      return response ? send(reply, response) : reply.callNotFound();
    };
    const methods = ["GET", "POST", "DELETE", "PUT", "PATCH"] as const;
    scope.route({ method: [...methods], url: handler.basePath, handler: route });
    scope.route({ method: [...methods], url: `${handler.basePath}/*`, handler: route });
  });
};

/** The Portcullis Fastify plugin: `app.register(portcullis, { auth })`. */
export const portcullis = fp(plugin, { name: "@portcullis/adapter-fastify", fastify: "5.x" });
export default portcullis;
