import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@portcullis/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** Test support (not exported): both example servers as processes sharing one set of stores. */
const ENTRIES = ["express", "fastify"].map(
  (name) => new URL(`../../${name}/dist/server.js`, import.meta.url).pathname,
);
const built = ENTRIES.every((entry) => existsSync(entry));
const JSON_HEADERS = { "content-type": "application/json" };
const PASSWORD = "correct horse battery staple";

async function waitUntilUp(base: string): Promise<void> {
  // A child's start (Node, the example's imports, the migrations) took over 15 s once on a machine
  // running other test files and browsers beside it.
  const deadline = Date.now() + 45_000;
  while (
    (await fetch(`${base}/`).then(
      (r) => r.status,
      () => 0,
    )) !== 200
  ) {
    if (Date.now() > deadline) throw new Error(`${base} did not start`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** What a test file provides: the environment pointing both instances at the shared stores. */
export interface SharedStores {
  setup(): Promise<Record<string, string>>;
  teardown(): Promise<void>;
}

/** The two running instances: their processes and base URLs, Express's first. */
interface Instances {
  children: ChildProcess[];
  bases: string[];
}

/** Starts each built example (`ENTRIES`) as a process on `env`'s stores, seeded with one user, and waits until both answer. */
async function startInstances(instances: Instances, env: Record<string, string>): Promise<void> {
  const seedFile = join(await mkdtemp(join(tmpdir(), "portcullis-two-")), "seed.json");
  await writeFile(seedFile, JSON.stringify([{ email: "ada@example.test", password: PASSWORD }]));
  for (const entry of ENTRIES) {
    const port = await freePort();
    const child = spawn(process.execPath, [entry], {
      env: {
        ...process.env,
        PORT: String(port),
        HOST: "127.0.0.1",
        NODE_ENV: "development",
        AUTH_SECRET: "multi-instance-secret-OX_XOKfiJNoLIzQphN0jYb9Hbovc4e08qSgHj03K15Y",
        SEED_FILE: seedFile,
        LOGIN_ALERTS: "false",
        ...env,
      },
      stdio: ["ignore", "ignore", "inherit"],
    });
    instances.children.push(child);
    instances.bases.push(`http://127.0.0.1:${port}`);
  }
  for (const base of instances.bases) await waitUntilUp(base);
}

/** Stops the processes: a child that already exited emits no second "exit"; one that ignores SIGTERM gets SIGKILL. */
async function stopInstances({ children }: Instances): Promise<void> {
  await Promise.all(
    children.map((child) =>
      child.exitCode !== null || child.signalCode !== null
        ? undefined
        : new Promise((resolve) => {
            const kill = setTimeout(() => child.kill("SIGKILL"), 10_000);
            child.once("exit", () => resolve(clearTimeout(kill)));
            child.kill("SIGTERM");
          }),
    ),
  );
}

/** What must hold across instances, each a named test given the instances' base URLs. */
const TWO_INSTANCE_TESTS: Record<string, (bases: string[]) => Promise<void>> = {
  "reset - 50 concurrent requests for one address, spread over both instances, send exactly one email":
    async (bases) => {
      const statuses = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          fetch(`${bases[i % 2]}/api/auth/password/reset-request`, {
            method: "POST",
            headers: JSON_HEADERS,
            body: JSON.stringify({ email: i % 3 === 0 ? " ADA@example.test" : "ada@example.test" }),
          }).then((response) => response.status),
        ),
      );
      expect(statuses.filter((status) => status === 200)).toHaveLength(1);
      expect(statuses.filter((status) => status === 429)).toHaveLength(49);
      const outboxes = await Promise.all(
        bases.map((base) =>
          fetch(`${base}/dev/outbox`).then((r) => r.json() as Promise<{ emails: { kind: string }[] }>),
        ),
      );
      expect(
        outboxes.flatMap((outbox) => outbox.emails).filter((email) => email.kind === "password-reset"),
      ).toHaveLength(1);
    },

  "logout - on one instance, the access token is rejected on the other at once": async (bases) => {
    const [a = "", b = ""] = bases;
    const login = await fetch(`${a}/api/auth/login`, {
      method: "POST",
      headers: JSON_HEADERS,
      body: JSON.stringify({ email: "ada@example.test", password: PASSWORD }),
    });
    const { accessToken } = (await login.json()) as { accessToken: string };
    const auth = { authorization: `Bearer ${accessToken}` };
    expect((await fetch(`${b}/api/hello`, { headers: auth })).status).toBe(200);
    expect((await fetch(`${a}/api/auth/logout`, { method: "POST", headers: auth })).status).toBe(200);
    const after = await fetch(`${b}/api/hello`, { headers: auth });
    expect(after.status).toBe(401);
    expect(after.headers.get("auth-error-code")).toBe("ACCESS_TOKEN_INVALID");
  },
};

/**
 * Starts the Express and the Fastify example as processes on shared stores and checks what must
 * hold across instances (`TWO_INSTANCE_TESTS`): one email for 50 concurrent reset requests, and a
 * logout on one instance rejecting the token on the other at once. Skipped unless both are built.
 */
export function runTwoInstanceTests(name: string, stores: SharedStores): void {
  describe(name, () => {
    const instances: Instances = { children: [], bases: [] };
    beforeAll(async () => {
      if (built) await startInstances(instances, await stores.setup());
    }, 100_000);
    afterAll(async () => {
      await stopInstances(instances);
      if (built) await stores.teardown();
    });
    for (const [test, body] of Object.entries(TWO_INSTANCE_TESTS)) {
      it.skipIf(!built)(test, () => body(instances.bases));
    }
  });
}
