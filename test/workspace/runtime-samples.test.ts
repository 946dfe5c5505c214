// The runtime samples of docs/runtimes.md and of the adapter-fetch README, run as written: each is
// taken out of the markdown, written to a temporary folder and imported (vitest compiles it and
// resolves `@portcullis/*` to the packages' sources), then registers and signs in a user over it.
// Its `process.env.*` are set here: AUTH_SECRET, SMTP_URL (a capturing SMTP server of this test:
// the samples send through the real `createSmtpMailer`) and PORT (a free port). Around the samples
// the test supplies only what a host's toolchain would: `hono` and `@hono/node-server` (linked from
// examples/hono), Next.js's `@/` path alias (the app's tsconfig) and, for the Next.js route files,
// a stand-in for `next/server` (a `Request`/`Response` pair: the route files are type-checked
// against Next.js's own types by packages/adapter-fetch/src/nextjs-types.test.ts).
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { createServer, Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ROOT } from "./source-files.js";

/** The ```ts blocks of the section `## heading` of `doc` (up to the next `## `). */
function blocksOf(doc: string, heading: string): string[] {
  const start = doc.indexOf(`\n## ${heading}\n`);
  if (start === -1) throw new Error(`no section "## ${heading}"`);
  const end = doc.indexOf("\n## ", start + 1);
  const section = doc.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map(([, code = ""]) => code);
}

/** The Next.js section's files, by the path their first line names (`// lib/auth.ts: …`). */
function nextFiles(doc: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const code of blocksOf(doc, "Next.js route handlers")) {
    const path = /^\/\/ ([\w/[\].-]+\.ts)/.exec(code)?.[1];
    if (path) files.set(path, code);
  }
  return files;
}

/** An SMTP server that takes every message (no TLS, no auth) and keeps its raw text. */
async function startSmtp() {
  const messages: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    let buffer = "";
    let data: string | undefined;
    socket.write("220 capture ESMTP\r\n");
    socket.on("data", (chunk) => {
      buffer += chunk.toString("utf8");
      for (let end = buffer.indexOf("\r\n"); end !== -1; end = buffer.indexOf("\r\n")) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (data !== undefined) {
          if (line !== ".") data += `${line}\r\n`;
          else {
            messages.push(data);
            data = undefined;
            socket.write("250 kept\r\n");
          }
        } else if (/^(EHLO|HELO)/i.test(line)) socket.write("250 capture\r\n");
        else if (/^DATA/i.test(line)) {
          data = "";
          socket.write("354 go on\r\n");
        } else if (/^QUIT/i.test(line)) socket.end("221 bye\r\n");
        else socket.write("250 ok\r\n");
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    /** Whether no client is connected (a send in flight has a connection open). */
    idle: () => sockets.size === 0,
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

/** A port nothing listens on now (the samples read PORT). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Next.js's `next/server` as a route handler sees it at run time: a Request in, a Response out. */
const NEXT_SERVER = `export class NextRequest extends Request {}
export class NextResponse extends Response {
  static json(body, init) { return Response.json(body, init); }
}
`;

const ACCOUNT = () => ({
  email: `sample-${randomBytes(4).toString("hex")}@acme.test`,
  password: "a long enough passphrase 42",
});
const JSON_HEADERS = { "content-type": "application/json" };

type Call = (path: string, init?: RequestInit) => Promise<Response>;

/** Registers, signs in and (`hostRoute`) calls the host's own `/api/orders` with the access token, through `call`. */
async function registerAndLogIn(call: Call, messages: string[], hostRoute = true) {
  const account = ACCOUNT();
  const sentBefore = messages.length;
  const registered = await call("/api/auth/register", {
    method: "POST",
    headers: JSON_HEADERS,
    body: JSON.stringify(account),
  });
  expect(registered.status).toBe(200);
  const login = await call("/api/auth/login", {
    method: "POST",
    headers: JSON_HEADERS,
    body: JSON.stringify(account),
  });
  expect(login.status).toBe(200);
  const { accessToken, user } = (await login.json()) as {
    accessToken: string;
    user: { id: string; email: string };
  };
  expect(user.email).toBe(account.email);
  if (hostRoute) {
    const orders = await call("/api/orders", { headers: { authorization: `Bearer ${accessToken}` } });
    expect([orders.status, await orders.json()]).toEqual([200, { userId: user.id }]);
    const refused = await call("/api/orders");
    const { code } = (await refused.json()) as { code: string };
    expect([refused.status, code]).toEqual([401, "AUTHENTICATION_REQUIRED"]);
  } else {
    const me = await call("/api/auth/me", { headers: { authorization: `Bearer ${accessToken}` } });
    expect([me.status, ((await me.json()) as { id: string }).id]).toEqual([200, user.id]);
  }
  // The verification email went out through the sample's mailer, its link on the sample's appOrigin
  // (the login's sign-in alert to the same address may come first).
  const link = /https:\/\/acme\.test\/verify-email\?token=/;
  await expect
    .poll(() =>
      messages.slice(sentBefore).find((message) => message.includes(account.email) && link.test(message)),
    )
    .toMatch(link);
}

let work = "";
let runtimeWork = "";
let smtp: Awaited<ReturnType<typeof startSmtp>>;
const servers: { close(): unknown }[] = [];
const saved = {
  AUTH_SECRET: process.env.AUTH_SECRET,
  SMTP_URL: process.env.SMTP_URL,
  PORT: process.env.PORT,
};

beforeAll(async () => {
  smtp = await startSmtp();
  process.env.AUTH_SECRET = randomBytes(48).toString("base64");
  process.env.SMTP_URL = smtp.url;
  work = await mkdtemp(join(tmpdir(), "portcullis-samples-"));
  const hono = join(ROOT, "examples/hono/node_modules");
  await mkdir(join(work, "node_modules/@hono"), { recursive: true });
  await symlink(await realpath(join(hono, "hono")), join(work, "node_modules/hono"), "dir");
  await symlink(
    await realpath(join(hono, "@hono/node-server")),
    join(work, "node_modules/@hono/node-server"),
    "dir",
  );
  await mkdir(join(work, "node_modules/next"));
  await writeFile(
    join(work, "node_modules/next/package.json"),
    JSON.stringify({ name: "next", type: "module", exports: { "./server": "./server.js" } }),
  );
  await writeFile(join(work, "node_modules/next/server.js"), NEXT_SERVER);
  // Bun and Deno run their samples on the built packages from a folder of examples/hono (its
  // node_modules has them, and the runtimes), named zz-… so that git ignores it. (From a folder
  // outside the workspace that links the packages, Bun answered every auth error with a 500.)
  runtimeWork = await mkdtemp(join(ROOT, "examples/hono/zz-samples-"));
  // The samples' servers: closed after the tests (a sample keeps no handle of its own).
  const listen = Server.prototype.listen;
  vi.spyOn(Server.prototype, "listen").mockImplementation(function (this: Server, ...args: unknown[]) {
    servers.push(this);
    return listen.apply(this, args as Parameters<Server["listen"]>);
  });
});

afterAll(async () => {
  // The login alerts go out after the answers: let them arrive before the SMTP server goes.
  if (smtp) await vi.waitFor(() => expect(smtp.idle()).toBe(true), { timeout: 10_000 });
  vi.restoreAllMocks();
  for (const server of servers) server.close();
  for (const child of children) stop(child);
  smtp?.close();
  for (const [name, value] of Object.entries(saved))
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  if (work) await rm(work, { recursive: true, force: true });
  if (runtimeWork) await rm(runtimeWork, { recursive: true, force: true });
});

/** Writes `code` to `path` in the work folder and imports it, with PORT set to a free port. */
async function runSample(
  path: string,
  code: string,
): Promise<{ port: number; module: Record<string, unknown> }> {
  const file = join(work, path);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, code);
  const port = await freePort();
  process.env.PORT = String(port);
  return { port, module: await import(/* @vite-ignore */ file) };
}

const RUNTIME_BIN = join(ROOT, "examples/hono/node_modules/.bin");
const BUILT = ["core", "adapter-fetch", "store-memory"].every((pkg) =>
  existsSync(join(ROOT, "packages", pkg, "dist/index.js")),
);
const children: ChildProcess[] = [];

/** Ends a runtime and the shim that started it (`.bin/bun` and `.bin/deno` are shell scripts): its process group. */
function stop(child: ChildProcess): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
  } catch {
    // Gone already.
  }
}

/** Writes `code` to `path` and starts it with the runtime `bin` (and `args`) on a free port. */
async function runUnder(bin: string, args: string[], path: string, code: string) {
  await writeFile(join(runtimeWork, path), code);
  const port = await freePort();
  const child = spawn(join(RUNTIME_BIN, bin), [...args, path], {
    cwd: runtimeWork,
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  children.push(child);
  const output: string[] = [];
  child.stdout?.on("data", (chunk) => output.push(String(chunk)));
  child.stderr?.on("data", (chunk) => output.push(String(chunk)));
  const answers = () =>
    overHttp(port)("/api/auth/me").then(
      (response) => response.status,
      () => (child.exitCode === null ? 0 : Number.NaN),
    );
  try {
    await expect.poll(answers, { timeout: 30_000 }).toBe(401);
  } catch (error) {
    throw new Error(`${bin} did not serve the sample:\n${output.join("")}`, { cause: error });
  }
  return port;
}

/** Calls over HTTP to a sample's server on 127.0.0.1:`port`. */
const overHttp =
  (port: number): Call =>
  (path, init) =>
    fetch(`http://127.0.0.1:${port}${path}`, init);

describe("runtime samples", () => {
  it("docs/runtimes.md Hono - the sample starts and answers a register and a login", async () => {
    const [code = ""] = blocksOf(await readFile(join(ROOT, "docs/runtimes.md"), "utf8"), "Hono");
    const { port } = await runSample("hono/server.ts", code);
    await expect
      .poll(() =>
        overHttp(port)("/api/auth/me").then(
          (r) => r.status,
          () => 0,
        ),
      )
      .toBe(401);
    await registerAndLogIn(overHttp(port), smtp.messages);
  });

  it("adapter-fetch README - the sample starts and answers a register and a login", async () => {
    const readme = await readFile(join(ROOT, "packages/adapter-fetch/README.md"), "utf8");
    const code = /```ts\n([\s\S]*?)```/.exec(readme)?.[1] ?? "";
    const { port } = await runSample("readme/server.ts", code);
    await expect
      .poll(() =>
        overHttp(port)("/api/auth/me").then(
          (r) => r.status,
          () => 0,
        ),
      )
      .toBe(401);
    await registerAndLogIn(overHttp(port), smtp.messages);
  });

  it.skipIf(!BUILT || !existsSync(join(RUNTIME_BIN, "bun")))(
    "docs/runtimes.md Bun - the sample starts under Bun and answers a register and a login",
    async () => {
      const [code = ""] = blocksOf(await readFile(join(ROOT, "docs/runtimes.md"), "utf8"), "Bun");
      const port = await runUnder("bun", [], "bun-server.ts", code);
      await registerAndLogIn(overHttp(port), smtp.messages, false);
    },
    60_000,
  );

  it.skipIf(!BUILT || !existsSync(join(RUNTIME_BIN, "deno")))(
    "docs/runtimes.md Deno - the sample starts under Deno and answers a register and a login",
    async () => {
      const [code = ""] = blocksOf(await readFile(join(ROOT, "docs/runtimes.md"), "utf8"), "Deno");
      const port = await runUnder("deno", ["run", "--allow-all"], "deno-server.ts", code);
      await registerAndLogIn(overHttp(port), smtp.messages, false);
    },
    60_000,
  );

  it("docs/runtimes.md Next.js - the route files' exported handlers answer a register and a login", async () => {
    const files = nextFiles(await readFile(join(ROOT, "docs/runtimes.md"), "utf8"));
    expect([...files.keys()]).toEqual([
      "lib/auth.ts",
      "app/api/auth/[...all]/route.ts",
      "app/api/orders/route.ts",
    ]);
    const modules = new Map<string, Record<string, unknown>>();
    for (const [path, code] of files) {
      // The app's tsconfig maps `@/…` to its root, as every Next.js app's does.
      const root = relative(dirname(join(work, "next", path)), join(work, "next")) || ".";
      const { module } = await runSample(join("next", path), code.replaceAll('from "@/', `from "${root}/`));
      modules.set(path, module);
    }
    type Handler = (request: Request, context: { params: Promise<object> }) => Promise<Response>;
    const auth = modules.get("app/api/auth/[...all]/route.ts") ?? {};
    const orders = modules.get("app/api/orders/route.ts") ?? {};
    expect([auth.runtime, orders.runtime]).toEqual(["nodejs", "nodejs"]);
    // Next.js calls the export named after the method with the request and the route's params.
    const call: Call = (path, init = {}) => {
      const method = init.method ?? "GET";
      const module = path.startsWith("/api/auth/") ? auth : orders;
      const request = new Request(`https://acme.test${path}`, {
        ...init,
        headers: { ...init.headers, "x-forwarded-for": "203.0.113.7" },
      });
      const params = Promise.resolve(path.startsWith("/api/auth/") ? { all: path.split("/").slice(3) } : {});
      return (module[method] as Handler)(request, { params });
    };
    await registerAndLogIn(call, smtp.messages);
  });
});
