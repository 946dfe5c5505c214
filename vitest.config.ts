import { availableParallelism } from "node:os";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

const src = (pkg: string) => fileURLToPath(new URL(`./packages/${pkg}/src/index.ts`, import.meta.url));

const root = fileURLToPath(new URL(".", import.meta.url));

/**
 * The longest files of a run, longest first, so that no long file starts last and leaves a core
 * idle (a clean clone has no timing cache, and vitest then starts the largest files first; the
 * browser files are small ones that call a shared suite, so they would come last). On a 2-core
 * VM: Express's browser file, the whole browser suite, about 500-600 s, all the time of one
 * worker while the other runs the next ones (Fastify's and Hono's browser files, the tests that
 * depend on the framework, about 70-130 s; the examples' store suites, 75-120 s), then two
 * packaging files and the outage recovery (about 40 s each).
 */
const LONGEST_FIRST = [
  "examples/express/src/browser.test.ts",
  "examples/fastify/src/postgres-redis.test.ts",
  "examples/fastify/src/browser.test.ts",
  "examples/hono/src/sqlite-redis.test.ts",
  "examples/hono/src/browser.test.ts",
  "examples/express/src/postgres.test.ts",
  "examples/express/src/sqlite.test.ts",
  "test/packaging/install.test.ts",
  "test/packaging/packaging.test.ts",
  "examples/express/src/outage-recovery.test.ts",
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const index = LONGEST_FIRST.indexOf(relative(root, file.moduleId).replaceAll("\\", "/"));
      return index === -1 ? LONGEST_FIRST.length : index;
    };
    // Array#sort is stable: the others keep vitest's own order.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}

export default defineConfig({
  resolve: {
    alias: {
      "@portcullis/core": src("core"),
      "@portcullis/testing": src("testing"),
      "@portcullis/store-memory": src("store-memory"),
      "@portcullis/store-redis": src("store-redis"),
      "@portcullis/store-sql": src("store-sql"),
      "@portcullis/adapter-express": src("adapter-express"),
      "@portcullis/adapter-fastify": src("adapter-fastify"),
      "@portcullis/adapter-fetch": src("adapter-fetch"),
      "@portcullis/client": src("client"),
      "@portcullis/oauth-provider": src("oauth-provider"),
      "@portcullis/sso": src("sso"),
      "example-shared/suite": fileURLToPath(
        new URL("./examples/shared/src/example-suite.ts", import.meta.url),
      ),
      "example-shared/browser-suite": fileURLToPath(
        new URL("./examples/shared/src/browser-suite.ts", import.meta.url),
      ),
      "example-shared": fileURLToPath(new URL("./examples/shared/src/index.ts", import.meta.url)),
    },
  },
  test: {
    include: [
      "packages/*/src/**/*.test.ts",
      "examples/*/src/**/*.test.ts",
      "examples/*/test/**/*.test.ts",
      "test/**/*.test.ts",
    ],
    // Most test files wait on I/O (a database, Redis, SMTP, a browser): vitest's default of one
    // worker per core minus one leaves a 2-core machine's second core idle. At least two files at once.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 20_000,
    // expect.poll's default of 1 s is short for a browser page on a machine running two test files
    // at once (a verification page still said "Checking your link…" after 1 s once): 5 s, which only
    // a failing check waits out.
    expect: { poll: { timeout: 5_000 } },
    hookTimeout: 30_000,
    sequence: { sequencer: LongestFirst },
  },
});
