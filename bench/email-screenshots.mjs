// Screenshot check: every email kind in en and de, rendered in headless Chromium at 375 px and
// 800 px wide, must not overflow horizontally. PNGs go to bench/out/screenshots/ (not in git).
// Run: pnpm check:email-screenshots   (needs Debian's chromium: apt-get install --no-install-recommends chromium)
import { mkdir } from "node:fs/promises";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "@portcullis/testing";
import { chromium } from "playwright-core";
import { createEmailRenderer, createTranslator, EMAIL_KINDS } from "../packages/core/dist/index.js";
import { BRAND, valuesFor } from "./email-fixtures.mjs";

const out = new URL("./out/screenshots/", import.meta.url);
await mkdir(out, { recursive: true });
const renderer = createEmailRenderer({ brand: BRAND, translator: createTranslator("en") });
const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS] });
const rows = [];
try {
  for (const width of [375, 800]) {
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    for (const locale of ["en", "de"]) {
      for (const kind of EMAIL_KINDS) {
        const { html } = await renderer.render(kind, locale, valuesFor(kind));
        await page.setContent(html, { waitUntil: "load" });
        const { scrollWidth, innerWidth, widest } = await page.evaluate(() => {
          let widest = "";
          let right = 0;
          for (const element of document.querySelectorAll("body *")) {
            const box = element.getBoundingClientRect();
            if (box.right > right) {
              right = box.right;
              widest = `${element.tagName.toLowerCase()}.${element.className}`;
            }
          }
          return { scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth, widest };
        });
        const overflow = scrollWidth > innerWidth;
        await page.screenshot({
          path: new URL(`${kind}-${locale}-${width}.png`, out).pathname,
          fullPage: true,
        });
        rows.push({ kind, locale, width, scrollWidth, overflow, ...(overflow ? { widest } : {}) });
      }
    }
    await page.close();
  }
} finally {
  await browser.close();
}
console.table(rows);
const failures = rows.filter((row) => row.overflow);
console.log(`${rows.length} renders, ${failures.length} with horizontal overflow; PNGs in ${out.pathname}`);
process.exitCode = failures.length === 0 ? 0 : 1;
