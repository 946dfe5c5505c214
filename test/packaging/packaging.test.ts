// The published packages as an integrator gets them: `pnpm pack` every package, install the
// tarballs with npm into empty directories, measure what `@portcullis/core` alone installs, and
// type-check (strict, NodeNext) and start the README's own quick starts, so the README cannot drift.
// Needs the packages built (`pnpm test` builds first) and the npm registry.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { lstat, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, posix } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packPackages, plainEnv, ROOT, run } from "./pack.js";

const PACKAGES = [
  "core",
  "adapter-express",
  "adapter-fastify",
  "adapter-fetch",
  "client",
  "store-memory",
  "store-redis",
  "store-sql",
  "testing",
  "oauth-provider",
];
/** The goal of issue 13 for `npm install @portcullis/core` alone. */
const CORE_MAX_PACKAGES = 25;
const CORE_MAX_BYTES = 15 * 1024 * 1024;
/** What the quick starts and the snippets need besides the tarballs (their peers come with them). */
const APP_DEPENDENCIES = [
  "express@5.3.0",
  "fastify@5.12.8",
  "hono@4.13.19",
  "@hono/node-server@2.1.9",
  "nodemailer@10.6.0",
  "ioredis@6.0.0",
  "kysely@0.29.9",
  "pg@8.23.1",
  "vitest@4.1.12",
  "typescript@5.9.3",
  "@types/express@5.0.4",
  "@types/node@22",
  "@types/pg@8.23.1",
];
const NPM_FLAGS = ["--no-audit", "--no-fund", "--loglevel=error"];
const MINUTES = 60_000;

let work: string;
const tarballs: Record<string, string> = {};

async function npm(cwd: string, args: string[]) {
  return run("npm", args, {
    cwd,
    maxBuffer: 64 * 1024 * 1024,
    env: plainEnv(),
  });
}

async function emptyApp(name: string) {
  const dir = join(work, name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "package.json"), JSON.stringify({ name, private: true, type: "module" }));
  return dir;
}

/** Sum of the sizes of every file below `dir` (what `du -sb` counts, without directory entries). */
async function bytesBelow(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += await bytesBelow(path);
    else total += (await lstat(path)).size;
  }
  return total;
}

/** The first ```ts block after a heading of the root README. */
function snippetAfter(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`README.md has no "${heading}" section`);
  const match = /```ts\n([\s\S]*?)```/.exec(markdown.slice(start));
  if (!match?.[1]) throw new Error(`README.md: no ts block after "${heading}"`);
  return match[1];
}

/**
 * The relative link targets of a markdown file: inline links and images `[text](target)` and
 * reference definitions `[label]: target`, outside fenced code blocks; URLs with a scheme,
 * protocol-relative ones and same-page anchors are left out.
 */
function relativeLinks(markdown: string): string[] {
  const prose = markdown.replace(/^```[\s\S]*?^```/gm, "");
  const targets = [
    ...[...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1] ?? ""),
    ...[...prose.matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((m) => m[1] ?? ""),
  ];
  return targets.filter((target) => target !== "" && !/^([a-z][a-z\d+.-]*:|\/\/|#)/i.test(target));
}

/** Every ```ts block of a markdown file. */
const tsBlocks = (markdown: string) => [...markdown.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Starts a compiled quick start and waits until its protected route answers; returns a stop. */
async function startQuickStart(dir: string, file: string, port: number) {
  const child = spawn(process.execPath, [file], {
    cwd: dir,
    env: {
      ...process.env,
      NODE_ENV: "production",
      PORT: String(port),
      AUTH_SECRET: "packaging-test-secret-fTI991ANzUxflzDFj6m-NTn8M8HuqRuZNFk75vs5IcI",
      SMTP_URL: "smtp://127.0.0.1:1",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${file} exited (${child.exitCode}):\n${output}`);
    try {
      await fetch(`http://127.0.0.1:${port}/`);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`${file} did not listen on ${port}:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    output: () => output,
    stop: async () => {
      child.kill();
      await exited;
    },
  };
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "portcullis-packaging-"));
  const packed = join(work, "tarballs");
  await mkdir(packed);
  Object.assign(tarballs, await packPackages(PACKAGES, packed));
}, 2 * MINUTES);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe("packaging", () => {
  it(
    "tarballs - each has its LICENSE, README and dist; testing ships the golden transcripts; peer ranges accept 0.x",
    async () => {
      for (const dir of PACKAGES) {
        const { stdout } = await run("tar", ["tzf", tarballs[dir] ?? ""]);
        const files = stdout.split("\n");
        for (const file of [
          "LICENSE",
          "README.md",
          "dist/index.js",
          "dist/index.d.ts",
          "dist/esm-only.cjs",
        ]) {
          expect(files, `${dir}: ${file}`).toContain(`package/${file}`);
        }
        expect(files.some((file) => file.includes("/src/"))).toBe(false);
        if (dir === "testing") {
          expect(
            files.filter((file) => /^package\/transcripts\/[\w-]+\.txt$/.test(file)).length,
          ).toBeGreaterThan(5);
          expect(files.some((file) => file.includes("transcripts/recorded/"))).toBe(false);
        }
        const manifest = JSON.parse(
          (await run("tar", ["xzf", tarballs[dir] ?? "", "-O", "package/package.json"])).stdout,
        ) as Record<string, Record<string, unknown> | undefined>;
        expect(manifest.repository).toMatchObject({ directory: `packages/${dir}` });
        expect(manifest.bugs).toBeDefined();
        expect(JSON.stringify(manifest)).not.toContain("workspace:");
        if (dir !== "core") expect(manifest.peerDependencies?.["@portcullis/core"]).toBe(">=0.0.0 <1.0.0");
      }
    },
    MINUTES,
  );

  it(
    "tarballs - every relative link in a shipped markdown file points to a file in the same tarball",
    async () => {
      let checked = 0;
      for (const dir of PACKAGES) {
        const files = (await run("tar", ["tzf", tarballs[dir] ?? ""])).stdout.split("\n").filter(Boolean);
        const shipped = new Set(files);
        for (const file of files.filter((name) => name.endsWith(".md"))) {
          const markdown = (await run("tar", ["xzf", tarballs[dir] ?? "", "-O", file])).stdout;
          for (const target of relativeLinks(markdown)) {
            const path = decodeURI(target.split("#")[0] ?? "");
            const resolved = posix.normalize(posix.join(posix.dirname(file), path));
            const found =
              shipped.has(resolved) ||
              files.some((name) => name.startsWith(`${resolved.replace(/\/$/, "")}/`));
            expect(
              found,
              `${dir}: ${file.slice("package/".length)} links to ${target}, not in the tarball`,
            ).toBe(true);
            checked += 1;
          }
        }
      }
      // The store-sql README links to its docs/existing-users-table.md: the check ran on something.
      expect(checked).toBeGreaterThan(0);
    },
    MINUTES,
  );

  it(
    `@portcullis/core alone - under ${CORE_MAX_PACKAGES} packages and 15 MB, no mjml or nodemailer, require() explains ESM-only`,
    async () => {
      const dir = await emptyApp("core-only");
      await npm(dir, ["install", ...NPM_FLAGS, tarballs.core ?? ""]);
      const { stdout } = await npm(dir, ["ls", "--all", "--parseable"]);
      const installed = stdout.trim().split("\n").slice(1); // the first line is the app itself
      const bytes = await bytesBelow(join(dir, "node_modules"));
      console.log(`@portcullis/core alone: ${installed.length} packages, ${(bytes / 1e6).toFixed(1)} MB`);
      expect(installed.length).toBeLessThan(CORE_MAX_PACKAGES);
      expect(bytes).toBeLessThan(CORE_MAX_BYTES);
      expect(installed.some((path) => /node_modules[\\/](mjml|nodemailer)$/.test(path))).toBe(false);

      const required = await run(
        process.execPath,
        ["-e", 'try { require("@portcullis/core") } catch (e) { console.log(e.message) }'],
        { cwd: dir },
      );
      expect(required.stdout).toContain(
        '@portcullis/core is ESM-only: use `import … from "@portcullis/core"`',
      );
      const imported = await run(
        process.execPath,
        ["--input-type=module", "-e", 'console.log(typeof (await import("@portcullis/core")).createAuth)'],
        { cwd: dir },
      );
      expect(imported.stdout.trim()).toBe("function");
      // openid-client is an optional peer: identity providers without it are refused at createAuth.
      const withoutOpenIdClient = await run(
        process.execPath,
        [
          "--input-type=module",
          "-e",
          `const { createAuth } = await import("@portcullis/core");
           const port = (names) => Object.fromEntries(names.map((name) => [name, async () => null]));
           const stores = {
             users: port(["findById", "findByEmail", "create", "update", "delete"]),
             cooldowns: port(["acquire", "remainingMs", "release", "hit", "refundHit", "clearHits"]),
             sessions: port(["createSession", "getSession", "listSessions", "rotateRefreshToken", "deleteSession",
               "deleteUserSessions"]),
             allowlist: port(["allowAccessToken", "findAllowedAccessToken", "revokeAccessTokens"]),
             singleUseTokens: port(["saveToken", "consumeToken", "deleteUserTokens"]),
             identities: port(["link", "findBySubject", "listByUser", "unlink"]),
           };
           try {
             createAuth({ secret: "packaging-test-secret-u52_5EuwD8y1uA1WHLRRNEQhpYdii5m5_I8MDwY86MY", stores, email: { enabled: false },
               appOrigin: "https://app.example.test",
               identityProviders: [{ type: "github", clientId: "a", clientSecret: "b" }] });
             console.log("started");
           } catch (error) { console.log(error.name, error.message); }`,
        ],
        { cwd: dir },
      );
      expect(withoutOpenIdClient.stdout).toContain('TypeError Invalid Portcullis option "identityProviders"');
      expect(withoutOpenIdClient.stdout).toContain("npm install openid-client");
    },
    5 * MINUTES,
  );

  it(
    "quick starts and README snippets - type-check in a strict app and the quick starts answer 401",
    async () => {
      const dir = await emptyApp("app");
      await npm(dir, [
        "install",
        ...NPM_FLAGS,
        ...PACKAGES.map((p) => tarballs[p] ?? ""),
        ...APP_DEPENDENCIES,
      ]);
      await writeFile(
        join(dir, "tsconfig.json"),
        JSON.stringify({
          compilerOptions: {
            target: "ES2023",
            module: "NodeNext",
            moduleResolution: "NodeNext",
            strict: true,
            noUncheckedIndexedAccess: true,
            skipLibCheck: true,
            types: ["node"],
            outDir: "out",
          },
          include: ["src"],
        }),
      );
      const src = join(dir, "src");
      await mkdir(src);
      const readme = await readFile(join(ROOT, "README.md"), "utf8");
      await writeFile(join(src, "express.ts"), snippetAfter(readme, "## Express quick start"));
      await writeFile(join(src, "fastify.ts"), snippetAfter(readme, "## Fastify quick start"));
      for (const pkg of PACKAGES) {
        const blocks = tsBlocks(await readFile(join(ROOT, "packages", pkg, "README.md"), "utf8"));
        for (const [i, block] of blocks.entries()) {
          // `export {}`: each snippet is a module of its own, as in a host's file.
          await writeFile(join(src, `readme-${pkg}-${i + 1}.ts`), `${block}\nexport {};\n`);
        }
      }
      for (const fixture of ["expect-errors.ts", "require.cts"]) {
        await writeFile(join(src, fixture), await readFile(new URL(`fixtures/${fixture}`, import.meta.url)));
      }

      const tsc = await run(process.execPath, [join(dir, "node_modules/typescript/bin/tsc"), "-p", dir], {
        cwd: dir,
      }).then(
        ({ stdout, stderr }) => `${stdout}${stderr}`,
        (error: { stdout?: string; stderr?: string; message?: string }) =>
          `${error.stdout ?? ""}${error.stderr ?? ""}` || String(error.message),
      );
      expect(tsc).toBe("");
      expect(existsSync(join(dir, "out", "express.js"))).toBe(true);

      for (const name of ["express", "fastify"]) {
        const port = await freePort();
        const server = await startQuickStart(dir, join(dir, "out", `${name}.js`), port);
        try {
          const origin = `http://127.0.0.1:${port}`;
          const protectedRoute = await fetch(`${origin}/api/orders`);
          expect(protectedRoute.status, server.output()).toBe(401);
          const login = await fetch(`${origin}/api/auth/login`, {
            method: "POST",
            headers: { "content-type": "application/json", origin },
            body: JSON.stringify({ email: "nobody@acme.test", password: "not the password at all" }),
          });
          expect(login.status, server.output()).toBe(401);
          expect(await login.text()).toContain("INVALID_CREDENTIALS");
        } finally {
          await server.stop();
        }
      }
    },
    8 * MINUTES,
  );
});
