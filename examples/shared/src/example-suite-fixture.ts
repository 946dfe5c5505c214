import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createArgon2Hasher } from "@portcullis/core";
import { readConfig } from "./config.js";
import { createExampleAuth, type ExampleAuth } from "./setup.js";

export interface ExampleSuiteOptions {
  name: string;
  /** Starts the example's app in-process on 127.0.0.1 with a free port. */
  start(example: ExampleAuth): Promise<{ baseUrl: string; close(): Promise<void> }>;
  /** The built entry (`dist/server.js`), started as its own process by the last test. */
  serverEntry: string;
  /** Extra environment for the app and the built server, e.g. `DATABASE_URL` (a function: read when the suite starts). */
  env?: () => Record<string, string>;
}

const SEED = [
  { email: "ada@example.test", password: "correct horse battery staple", name: "Ada", emailVerified: true },
  { email: "grace@example.test", identityProviders: ["github"] },
];

/**
 * What the example suite's tests share: one example app, started in-process on the seeded users
 * (`SEED`, written to `seedFile`) by `open` before the first test and stopped by `close` after the last.
 */
export class ExampleFixture {
  seedFile = "";
  #example: ExampleAuth | undefined;
  #server: { baseUrl: string; close(): Promise<void> } | undefined;

  constructor(readonly options: ExampleSuiteOptions) {}

  async open(): Promise<void> {
    this.seedFile = join(await mkdtemp(join(tmpdir(), "portcullis-seed-")), "seed.json");
    await writeFile(this.seedFile, JSON.stringify(SEED));
    const config = readConfig({
      SEED_FILE: this.seedFile,
      AUTH_SECRET: "example-suite-secret-Yksyq5mdQI5Y6ZiHw75wji4SovKgMvgDOJIchAW0JjM",
      APP_ORIGIN: "http://localhost:3000",
      ...this.options.env?.(),
    });
    this.#example = await createExampleAuth(config, {
      passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
    });
    this.#server = await this.options.start(this.#example);
  }

  async close(): Promise<void> {
    await this.#server?.close();
    this.#example?.close();
  }

  /** The running example's stores, auth and outbox. */
  get example(): ExampleAuth {
    if (!this.#example) throw new Error("the example suite's app is not started");
    return this.#example;
  }

  /** The running app's base URL, e.g. `http://127.0.0.1:4321`. */
  get baseUrl(): string {
    if (!this.#server) throw new Error("the example suite's app is not started");
    return this.#server.baseUrl;
  }

  /** `fetch` of a path on the running app. */
  fetch(path: string, init?: RequestInit): Promise<Response> {
    return fetch(`${this.baseUrl}${path}`, init);
  }

  /** A POST of `body` as JSON to a path on the running app. */
  postJson(path: string, body: unknown): Promise<Response> {
    return this.fetch(path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  }
}

/** One test of the example suite: its body, run with the suite's fixture. */
export type ExampleTestBody = ((f: ExampleFixture) => Promise<void>) & {
  /** Its own timeout (ms) instead of vitest's default. */
  timeout?: number;
  /** Skipped, when this returns true for the suite's options (read when the suite is collected). */
  skipIf?: (options: ExampleSuiteOptions) => boolean;
};
/** The example suite's tests, by name (the test's name as vitest shows it). */
export type ExampleTests = Record<string, ExampleTestBody>;
