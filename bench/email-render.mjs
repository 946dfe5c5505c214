// Email rendering benchmark: the one-time MJML compile cost and the median warm render per kind.
// Target (issue "Emails"): every warm render under 1 ms, MJML compiled once.
// Run: pnpm bench:email   (builds core, then runs this against packages/core/dist)
import { createEmailRenderer, createTranslator, EMAIL_KINDS } from "../packages/core/dist/index.js";
import { BRAND, valuesFor } from "./email-fixtures.mjs";

const ROUNDS = 2_000;
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

const renderer = createEmailRenderer({ brand: BRAND, translator: createTranslator("en") });
const compileStart = performance.now();
await renderer.compile();
const compileMs = performance.now() - compileStart;
console.log(
  `one-time compile of ${EMAIL_KINDS.length} templates (incl. importing mjml): ${compileMs.toFixed(0)} ms`,
);

const rows = [];
for (const locale of ["en", "de"]) {
  for (const kind of EMAIL_KINDS) {
    const values = valuesFor(kind);
    for (let i = 0; i < 100; i++) await renderer.render(kind, locale, values);
    const samples = [];
    for (let i = 0; i < ROUNDS; i++) {
      const start = performance.now();
      await renderer.render(kind, locale, values);
      samples.push(performance.now() - start);
    }
    rows.push({ kind, locale, medianUs: Math.round(median(samples) * 1000) });
  }
}
console.table(rows);
const worst = Math.max(...rows.map((row) => row.medianUs));
console.log(`worst median warm render: ${worst} µs (target < 1000 µs): ${worst < 1000 ? "OK" : "MISSED"}`);
process.exitCode = worst < 1000 ? 0 : 1;
