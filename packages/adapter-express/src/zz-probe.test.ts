import net from "node:net";
import type { AddressInfo } from "node:net";
import { createArgon2Hasher, createAuth } from "@portcullis/core";
import { createMemoryStores } from "@portcullis/store-memory";
import { createAuthRouter, requireAuth } from "@portcullis/adapter-express";
import { portcullis } from "@portcullis/adapter-fastify";
import express from "express";
import Fastify from "/work/main/packages/adapter-fastify/node_modules/fastify/fastify.js";
import { it } from "vitest";

const mk = () => createAuth({ secret: "x".repeat(40), stores: createMemoryStores(), email: { enabled: false },
  passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }) });

async function startExpress() {
  const auth = mk(); const app = express(); app.use(createAuthRouter(auth));
  app.get("/host/protected", requireAuth(auth), (req: any, res: any) => { res.json({ u: req.auth?.userId }); });
  const server = await new Promise<any>((r) => { const s = app.listen(0, "127.0.0.1", () => r(s)); });
  return { port: (server.address() as AddressInfo).port, close: () => new Promise((r) => server.close(r)) };
}
async function startFastify() {
  const auth = mk(); const app = Fastify(); await app.register(portcullis, { auth });
  app.get("/host/protected", { preHandler: (app as any).portcullisAuthenticate }, async (request: any) => ({ u: request.auth?.userId }));
  await app.listen({ port: 0, host: "127.0.0.1" });
  return { port: (app.server.address() as AddressInfo).port, close: () => app.close() };
}
function raw(port: number, text: string): Promise<string> {
  return new Promise((resolve) => {
    const sock = net.connect(port, "127.0.0.1", () => sock.write(text));
    let out = ""; sock.on("data", (d) => { out += d; });
    const t = setTimeout(() => { sock.destroy(); resolve(out + "\n<timeout>"); }, 1500);
    sock.on("close", () => { clearTimeout(t); resolve(out); }); sock.on("error", (e) => { clearTimeout(t); resolve(out + `\n<error ${e}>`); });
  });
}
const norm = (s: string) => s.replace(/^date: .*$/gim, "date: X").replace(/"timestamp":"[^"]+"/g, '"timestamp":"T"');
const cases: [string, string][] = [
  ["no ct body", "POST /api/auth/login HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"],
  ["empty ct, empty body", "POST /api/auth/logout HTTP/1.1\r\nHost: a\r\nContent-Type: \r\nContent-Length: 0\r\nConnection: close\r\n\r\n"],
  ["invalid ct, empty body", "POST /api/auth/logout HTTP/1.1\r\nHost: a\r\nContent-Type: text\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"],
  ["invalid ct, body", "POST /api/auth/login HTTP/1.1\r\nHost: a\r\nContent-Type: json;;\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"],
  ["json ct no CL no TE", "POST /api/auth/logout HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n"],
  ["json ct CL 0", "POST /api/auth/refresh HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"],
  ["chunked empty", "POST /api/auth/logout HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n0\r\n\r\n"],
  ["OPTIONS", "OPTIONS /api/auth/login HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"],
  ["HEAD me", "HEAD /api/auth/me HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"],
  ["PROPFIND", "PROPFIND /api/auth/me HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"],
  ["QUERY", "QUERY /api/auth/me HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"],
  ["PUT", "PUT /api/auth/me HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"],
  ["bad url enc", "GET /api/auth/%zz HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"],
  ["bad url enc param", "DELETE /api/auth/sessions/%zz HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"],
  ["long param", `DELETE /api/auth/sessions/${"a".repeat(300)} HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n`],
  ["base exact", "GET /api/auth HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"],
  ["base slash", "GET /api/auth/ HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"],
  ["base query", "GET /api/auth?x=1 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"],
  ["trailing slash", "GET /api/auth/me/ HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"],
  ["double slash", "GET /api/auth//me HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"],
  ["upper", "GET /API/AUTH/me HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"],
  ["encoded path", "GET /api/auth/%6De HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"],
  ["encoded slash base", "GET /api%2Fauth/me HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"],
  ["semicolon", "GET /api/auth/me;x HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"],
  ["GET with body", "GET /api/auth/me HTTP/1.1\r\nHost: a\r\nContent-Type: text/plain\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc"],
  ["DELETE json body", "DELETE /api/auth/sessions HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 3\r\nConnection: close\r\n\r\n{x}"],
  ["host no ct invalid", "GET /host/protected HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer x\r\nConnection: close\r\n\r\n"],
  ["host upper", "GET /host/protected HTTP/1.1\r\nHost: a\r\nCookie: access_token=%zz\r\nConnection: close\r\n\r\n"],
  ["ct with charset latin1", "POST /api/auth/login HTTP/1.1\r\nHost: a\r\nContent-Type: application/json; charset=latin1\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"],
  ["big CL", "POST /api/auth/login HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 99999999\r\nConnection: close\r\n\r\n{}"],
  ["absolute form", "GET http://a/api/auth/me HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"],
  ["keepalive two", "POST /api/auth/login HTTP/1.1\r\nHost: a\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\n{}GET /api/auth/me HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n"],
];
it("probe", async () => {
  const e = await startExpress(); const f = await startFastify();
  for (const [label, text] of cases) {
    const a = norm(await raw(e.port, text)); const b = norm(await raw(f.port, text));
    console.log(`=== ${label}: ${a === b ? "SAME" : "DIFF"}`);
    if (a !== b) console.log(`--- express\n${a}\n--- fastify\n${b}`);
    else console.log(a.split("\r\n")[0]);
  }
  await e.close(); await f.close();
}, 60000);
