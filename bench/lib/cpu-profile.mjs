// Summaries of a V8 .cpuprofile: self time by package and by function, and the inclusive time of
// named functions, over the samples after `fromMs` (so server start-up and seeding are left out).
import { readFileSync } from "node:fs";

const packageOf = (url) => {
  if (!url) return "(native)";
  const pnpm = /node_modules\/\.pnpm\/[^/]+\/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pnpm) return pnpm[1];
  const plain = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (plain) return plain[1];
  const workspace = /\/(packages|examples)\/([^/]+)\//.exec(url);
  if (workspace) return `${workspace[1]}/${workspace[2]}`;
  if (url.startsWith("node:")) return "node internals";
  return url;
};

export function summarize(file, { fromMs = 0, inclusive = [] } = {}) {
  const profile = JSON.parse(readFileSync(file, "utf8"));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  let t = profile.startTime;
  const cutoff = profile.startTime + fromMs * 1000;
  const self = new Map();
  const packages = new Map();
  const incl = new Map(inclusive.map((name) => [name, 0]));
  let busy = 0;
  let idle = 0;
  const add = (map, key, us) => map.set(key, (map.get(key) ?? 0) + us);
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i] ?? 0;
    t += delta;
    if (t < cutoff) continue;
    const node = byId.get(profile.samples[i]);
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === "(idle)") {
      idle += delta;
      continue;
    }
    busy += delta;
    const name = `${functionName || "(anonymous)"} ${packageOf(url)}:${lineNumber + 1}`;
    add(self, name, delta);
    add(
      packages,
      ["(garbage collector)", "(program)"].includes(functionName) ? functionName : packageOf(url),
      delta,
    );
    const seen = new Set();
    for (let id = node.id; id !== undefined; id = parent.get(id)) {
      const fn = byId.get(id).callFrame.functionName;
      if (incl.has(fn) && !seen.has(fn)) {
        seen.add(fn);
        add(incl, fn, delta);
      }
    }
  }
  const pct = (us) => `${((100 * us) / busy).toFixed(1)}%`;
  const top = (map, n) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([key, us]) => ({ name: key, share: pct(us) }));
  return {
    busyMs: busy / 1000,
    idleMs: idle / 1000,
    packages: top(packages, 12),
    functions: top(self, 20),
    inclusive: [...incl].map(([name, us]) => ({ name, share: pct(us) })),
  };
}
