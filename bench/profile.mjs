// CPU profiles of the example servers under load: one server process per (framework, scenario)
// under `node --cpu-prof`, autocannon 10 connections, then where the server's CPU time went.
// Run: pnpm --filter portcullis-bench profile [express|fastify] [me|reset|verification]
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { summarize } from "./lib/cpu-profile.mjs";
import { load, prepareScenarios, startExample, TMP, writeSeedFile } from "./lib/servers.mjs";

const frameworks = process.argv[2] ? [process.argv[2]] : ["express", "fastify"];
const scenarios = process.argv[3] ? [process.argv[3]] : ["me", "reset", "verification"];
const durationS = Number(process.env.PROFILE_SECONDS ?? 8);
const seedFile = writeSeedFile();
const INCLUSIVE = [
  "jwtVerify",
  "authenticate",
  "errorResponse",
  "errorMessage",
  "resolveLocale",
  "parseCookie",
  "structuredClone",
  "readJsonBody",
  "parseInput",
  "handle",
  "findById",
  "getCurrentUser",
  "jsonResponse",
  "sendWithCooldown",
  "requestPasswordReset",
  "resendVerification",
  "clientIp",
  "checkOrigin",
  "toISOString",
];

for (const framework of frameworks) {
  for (const name of scenarios) {
    const dir = join(TMP, `profile-${framework}-${name}`);
    rmSync(dir, { recursive: true, force: true });
    const spawned = performance.now();
    const server = await startExample(framework, {
      seedFile,
      nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${dir}`, "--cpu-prof-interval=200"],
    });
    const scenario = (await prepareScenarios(server.url))[name];
    const result = await load(server.url, scenario, { durationS, warmupS: 1 });
    const loadEnded = performance.now();
    await server.stop();
    const file = join(dir, readdirSync(dir)[0]);
    // The profile runs from spawn to exit: keep the last `durationS` seconds of load.
    const fromMs = loadEnded - spawned - durationS * 1000;
    const summary = summarize(file, { fromMs, inclusive: INCLUSIVE });
    console.log(
      `\n## ${framework} ${name}: ${Math.round(result.rps)} req/s, unexpected statuses ${result.unexpected}`,
    );
    console.log(`busy ${summary.busyMs.toFixed(0)} ms, idle ${summary.idleMs.toFixed(0)} ms`);
    console.table(summary.packages);
    console.table(summary.functions);
    console.table(summary.inclusive);
  }
}
