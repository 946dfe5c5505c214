// The benchmark's output: the table on stdout, bench/results/<date>.md and .json, and the
// "latest figures" block of bench/README.md (a BENCH_ONLY run says it is partial in its header).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { BENCH_DIR } from "./servers.mjs";

/** A printed row: figures rounded, the goal in words and whether the ratio meets it. */
export const tableRow = (scenario, framework, { ours, base, ratio }, baseName, goal) => ({
  scenario,
  framework,
  ours: Math.round(ours),
  [baseName]: Math.round(base),
  ratio: Number(ratio.toFixed(2)),
  goal: goal === undefined ? "-" : `>= ${goal.toFixed(2)} of ${baseName}`,
  met: goal === undefined ? "-" : ratio >= goal ? "yes" : "NO",
});

const markdownTable = (rows) => {
  const header =
    "| scenario | framework | ours | baseline | ratio | goal | met |\n|---|---|---:|---:|---:|---|---|\n";
  const line = (r) => {
    const [baseName] = Object.keys(r).filter(
      (k) => !["scenario", "framework", "ours", "ratio", "goal", "met"].includes(k),
    );
    return `| ${r.scenario} | ${r.framework} | ${r.ours.toLocaleString("en")} req/s | ${r[baseName].toLocaleString("en")} (${baseName}) | ${r.ratio.toFixed(2)} | ${r.goal} | ${r.met} |`;
  };
  return header + rows.map(line).join("\n");
};

/** The machine and the Nodes, for the header line. */
const machineOf = (nodes) => {
  const cpu = os.cpus();
  const parts = [
    nodes.server && `servers on Node ${nodes.server}`,
    nodes.node20 && `Node 20 rows on ${nodes.node20}`,
  ];
  const servers = parts.filter(Boolean).join(", ") || "no servers";
  return `${cpu.length} × ${cpu[0]?.model.trim()}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GB, ${os.platform()} ${os.release()}, ${servers} (bench and raw argon2id on ${process.version})`;
};

/**
 * Writes the run's report: `run` holds rows, figures, memory (or undefined), memoryLine, notes
 * (lines printed under the table), timing, rounds, quick, groups (the selected ones, or all) and nodes.
 */
export function writeReport(run) {
  const date = new Date().toISOString();
  const machine = machineOf(run.nodes);
  const partial = run.partial ? ` Partial run: BENCH_ONLY=${run.groups.join(",")}.` : "";
  const { timing } = run;
  const lines = [run.memoryLine, ...run.notes].filter(Boolean).join("\n");
  const head = `Run of ${date} on ${machine}; autocannon ${timing.connections} connections, ${timing.durationS} s after ${timing.warmupS} s warm-up; each ratio the median of ${run.rounds} back-to-back pairs (baseline, then ours), each figure the median of its windows${run.quick ? " (BENCH_QUICK)" : ""}.${partial}`;
  const table = run.rows.length > 0 ? markdownTable(run.rows) : "";
  const report = `${[head, table, lines].filter(Boolean).join("\n\n")}\n`;
  const results = join(BENCH_DIR, "results");
  mkdirSync(results, { recursive: true });
  const stamp = date.replace(/[:.]/g, "-");
  writeFileSync(join(results, `${stamp}.md`), report);
  const { rows, figures, memory, groups } = run;
  const json = { date, machine, timing, groups, partial: run.partial, rows, figures, memory };
  writeFileSync(join(results, `${stamp}.json`), JSON.stringify(json, null, 2));
  const readmePath = join(BENCH_DIR, "README.md");
  const readme = existsSync(readmePath) ? readFileSync(readmePath, "utf8") : "# Benchmarks\n";
  const START = "<!-- latest-figures:start -->";
  const END = "<!-- latest-figures:end -->";
  const block = `${START}\n${report}${END}`;
  writeFileSync(
    readmePath,
    readme.includes(START)
      ? readme.replace(new RegExp(`${START}[\\s\\S]*${END}`), () => block)
      : `${readme.trimEnd()}\n\n## Latest figures\n\n${block}\n`,
  );
  return stamp;
}
