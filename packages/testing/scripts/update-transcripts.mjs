#!/usr/bin/env node
// Copies the adapters' recorded transcripts (transcripts/recorded/<adapter>/<area>.txt, written by
// every run of the adapter suite) to the golden files (transcripts/<area>.txt), section by section,
// only when every adapter recorded the same bytes. Run both adapters' tests first. With --prune,
// golden sections no adapter recorded (deleted or renamed tests) are dropped.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const goldenDir = fileURLToPath(new URL("../transcripts/", import.meta.url));
const recordedDir = join(goldenDir, "recorded");
const prune = process.argv.includes("--prune");

/** The sections of a transcript file (the format of src/transcript.ts). */
function parse(file) {
  const sections = new Map();
  if (!existsSync(file)) return sections;
  let name;
  let lines = [];
  const flush = () => name !== undefined && sections.set(name, lines.join("\n").replace(/\n+$/, ""));
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const header = /^=== (.+) ===$/.exec(line);
    if (!header) lines.push(line);
    else {
      flush();
      name = header[1];
      lines = [];
    }
  }
  flush();
  return sections;
}

const format = (sections) =>
  `${[...sections].map(([name, text]) => `=== ${name} ===\n${text}`).join("\n\n")}\n`;

/** A line diff (longest common subsequence), changed lines with one line of context. */
function diff(a, b) {
  const x = a.split("\n");
  const y = b.split("\n");
  const lcs = Array.from({ length: x.length + 1 }, () => new Array(y.length + 1).fill(0));
  for (let i = x.length - 1; i >= 0; i--)
    for (let j = y.length - 1; j >= 0; j--)
      lcs[i][j] = x[i] === y[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  const out = [];
  let i = 0;
  let j = 0;
  while (i < x.length || j < y.length) {
    if (i < x.length && j < y.length && x[i] === y[j]) out.push([" ", x[i++], j++]);
    else if (i < x.length && (j === y.length || lcs[i + 1][j] >= lcs[i][j + 1])) out.push(["-", x[i++]]);
    else out.push(["+", y[j++]]);
  }
  const near = (k) => out.slice(Math.max(0, k - 1), k + 2).some(([mark]) => mark !== " ");
  return out
    .filter((_, k) => near(k))
    .map(([mark, line]) => `${mark} ${line}`)
    .join("\n");
}

const adapters = existsSync(recordedDir) ? readdirSync(recordedDir).sort() : [];
if (adapters.length < 2) {
  console.error(
    `Recordings of ${adapters.length} adapter(s) in ${recordedDir}: run the express and fastify tests first.`,
  );
  process.exit(1);
}
const areas = [...new Set(adapters.flatMap((adapter) => readdirSync(join(recordedDir, adapter))))].sort();
const [first, ...others] = adapters;
let failed = false;
const updates = [];
for (const area of areas) {
  const recorded = parse(join(recordedDir, first, area));
  for (const other of others) {
    const theirs = parse(join(recordedDir, other, area));
    for (const name of new Set([...recorded.keys(), ...theirs.keys()])) {
      const mine = recorded.get(name);
      const their = theirs.get(name);
      if (mine === their) continue;
      failed = true;
      if (mine === undefined || their === undefined)
        console.error(`${area}: "${name}" recorded by ${mine === undefined ? other : first} only`);
      else console.error(`${area}: "${name}" differs (- ${first}, + ${other}):\n${diff(mine, their)}\n`);
    }
  }
  const golden = parse(join(goldenDir, area));
  const merged = new Map(prune ? [...golden].filter(([name]) => recorded.has(name)) : golden);
  for (const [name, text] of recorded) merged.set(name, text);
  const stale = [...golden.keys()].filter((name) => !recorded.has(name));
  if (stale.length > 0 && !prune)
    console.log(`${area}: kept sections no adapter recorded (--prune drops them): ${stale.join("; ")}`);
  updates.push([area, golden, merged]);
}
if (failed) {
  console.error("The adapters answer differently: no golden file was written.");
  process.exit(1);
}
for (const [area, golden, merged] of updates) {
  const changed = [...merged].filter(([name, text]) => golden.get(name) !== text).map(([name]) => name);
  writeFileSync(join(goldenDir, area), format(merged));
  console.log(
    `${area}: ${changed.length} section(s) written${changed.length ? `: ${changed.join("; ")}` : ""}`,
  );
}
