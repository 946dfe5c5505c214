// Every `@example` of the packages' TSDoc compiles against the packages' own sources, so an
// example cannot drift from the API it shows. An example may use a few names a reader has in hand
// (`auth`, an `app` of its framework) without declaring them: they are declared for it, by package.
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { foldersOf, ROOT, readSourceFiles } from "./source-files.js";

interface Example {
  /** Where it is: `packages/<name>/src/<file>.ts:<line>`. */
  where: string;
  /** The package folder, e.g. `packages/core`. */
  folder: string;
  code: string;
}

/** The fenced `ts` blocks that follow an `@example` tag in `text`, with the comment's `*` taken off. */
function examplesOf(path: string, text: string): Example[] {
  const lines = text.split("\n");
  const found: Example[] = [];
  for (let index = 0; index < lines.length; index++) {
    if (!/^\s*\*\s*@example\s*$/.test(lines[index] ?? "")) continue;
    if (!/^\s*\*\s*```ts\s*$/.test(lines[index + 1] ?? "")) continue;
    const body: string[] = [];
    let end = index + 2;
    for (; end < lines.length && !/^\s*\*\s*```\s*$/.test(lines[end] ?? ""); end++)
      body.push((lines[end] ?? "").replace(/^\s*\* ?/, ""));
    found.push({
      where: `${path}:${index + 1}`,
      folder: path.split("/").slice(0, 2).join("/"),
      code: body.join("\n"),
    });
    index = end;
  }
  return found;
}

/** Declarations of names an example may use without declaring them, by package folder (all: every package). */
const GIVEN: Record<string, Record<string, string>> = {
  all: {
    auth: 'import type { Auth as GivenAuth } from "@portcullis/core";\ndeclare const auth: GivenAuth;',
  },
  "packages/adapter-express": {
    express: 'import express from "express";',
    app: 'import type { Express as GivenExpress } from "express";\ndeclare const app: GivenExpress;',
    createAuthRouter: 'import { createAuthRouter } from "@portcullis/adapter-express";',
    requireAuth: 'import { requireAuth } from "@portcullis/adapter-express";',
    requirePermission: 'import { requirePermission } from "@portcullis/adapter-express";',
    requireOAuth: 'import { requireOAuth } from "@portcullis/adapter-express";',
    setSessionCookies: 'import { setSessionCookies } from "@portcullis/adapter-express";',
  },
  "packages/adapter-fastify": {
    app: 'import type { FastifyInstance as GivenFastify } from "fastify";\ndeclare const app: GivenFastify;',
    portcullis: 'import { portcullis } from "@portcullis/adapter-fastify";',
    withAuth: 'import { withAuth } from "@portcullis/adapter-fastify";',
    requirePermission: 'import { requirePermission } from "@portcullis/adapter-fastify";',
    requireOAuth: 'import { requireOAuth } from "@portcullis/adapter-fastify";',
  },
  "packages/adapter-fetch": {
    app: 'import { Hono as GivenHono } from "hono";\ndeclare const app: GivenHono;',
    Bun: "declare const Bun: { serve(options: { fetch(request: Request): Response | Promise<Response> }): unknown };",
    createFetchHandler: 'import { createFetchHandler } from "@portcullis/adapter-fetch";',
    authenticateRequest: 'import { authenticateRequest } from "@portcullis/adapter-fetch";',
    requirePermission: 'import { requirePermission } from "@portcullis/adapter-fetch";',
    requireOAuth: 'import { requireOAuth } from "@portcullis/adapter-fetch";',
  },
};

/** The example as a module: the given names it uses and does not declare or import itself, then its code. */
function moduleOf({ folder, code }: Example): string {
  const given = { ...GIVEN.all, ...GIVEN[folder] };
  const declares = (name: string) =>
    new RegExp(`(?:const|let|var|function|class)\\s+${name}\\b|import[^;]*\\b${name}\\b[^;]*from`).test(code);
  const preamble = Object.entries(given)
    .filter(([name]) => new RegExp(`\\b${name}\\b`).test(code) && !declares(name))
    .map(([, declaration]) => declaration);
  return [...preamble, code, "export {};"].join("\n");
}

/** The diagnostics of compiling every example, each as `where: message`. */
function compileErrors(examples: Example[]): string[] {
  const configPath = `${ROOT}tsconfig.base.json`;
  const config = ts.getParsedCommandLineOfConfigFile(
    configPath,
    { noEmit: true, lib: ["lib.es2023.d.ts", "lib.dom.d.ts"] },
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"));
      },
    },
  );
  if (!config) throw new Error("tsconfig.base.json could not be read");
  // Each example sits in its package's src folder, so its imports resolve as the package's own do.
  const files = new Map(
    examples.map((example, index) => [`${ROOT}${example.folder}/src/__example-${index}.ts`, example]),
  );
  const host = ts.createCompilerHost(config.options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.readFile = (name) => (files.has(name) ? moduleOf(files.get(name) as Example) : readFile(name));
  host.fileExists = (name) => files.has(name) || fileExists(name);
  const program = ts.createProgram([...files.keys()], config.options, host);
  return [...files].flatMap(([name, example]) => {
    const source = program.getSourceFile(name);
    return ts
      .getPreEmitDiagnostics(program, source)
      .map(
        (diagnostic) => `${example.where}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, " ")}`,
      );
  });
}

const EXAMPLES = foldersOf("packages").flatMap((folder) =>
  [...readSourceFiles(`${folder}/src`)]
    .filter(([path]) => !/\.test\.ts$/.test(path))
    .flatMap(([path, text]) => examplesOf(path, text)),
);

describe("TSDoc examples", () => {
  it("examplesOf - the first functions a host calls each carry one", () => {
    const where = EXAMPLES.map((example) => example.where).join("\n");
    for (const file of [
      "packages/core/src/create-auth/create-auth.ts",
      "packages/adapter-express/src/index.ts",
      "packages/adapter-fastify/src/index.ts",
      "packages/adapter-fetch/src/index.ts",
      "packages/store-memory/src/memory-stores.ts",
      "packages/store-redis/src/redis-stores.ts",
      "packages/store-sql/src/sql-stores.ts",
      "packages/client/src/client.ts",
      "packages/oauth-provider/src/signing-keys.ts",
      "packages/oauth-provider/src/access-tokens.ts",
    ])
      expect(where).toContain(`${file}:`);
  });

  it("compileErrors - every example compiles against the packages' sources", () => {
    expect(compileErrors(EXAMPLES)).toEqual([]);
  }, 120_000);

  it("compileErrors - catches a planted example that calls what does not exist", () => {
    const planted = {
      where: "planted.ts:1",
      folder: "packages/core",
      code: "auth.host.noSuchOperation({});",
    };
    expect(compileErrors([planted])).toEqual([
      expect.stringMatching(/^planted\.ts:1: Property 'noSuchOperation' does not exist/),
    ]);
  }, 120_000);
});
