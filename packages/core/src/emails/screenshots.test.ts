import { existsSync } from "node:fs";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "@portcullis/testing";
import { chromium } from "playwright-core";
import { describe, expect, it } from "vitest";
import { createTranslator } from "../i18n/index.js";
import { EMAIL_KINDS } from "../options/email-kinds.js";
import { createEmailRenderer } from "./renderer.js";

const CHROMIUM = CHROMIUM_PATH;
const ARGS = [...CHROMIUM_ARGS];
const LONG_VALUES = {
  email: "maximilian.mustermann-schwarzenegger@verwaltungsgesellschaft-beispiel.test",
  name: "Maximilian Mustermann",
  link: "https://app.example.test/reset-password?token=Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5d2FsZG8",
  code: "042317",
  hours: 24,
  minutes: 30,
  providers: "GitHub, Google",
  method: "totp",
  change: "removed" as const,
  recoveryCodesLeft: 7,
  details: {
    time: "23. November 2026 um 07:00:00 UTC",
    browser: "Firefox 130",
    os: "Linux",
    ip: "2001:0db8:85a3:0000:0000:8a2e:0370:7334",
  },
};

describe("email layout in a real browser", () => {
  it.skipIf(!existsSync(CHROMIUM))(
    "layout - every kind in en and de fits 375 px and 800 px without horizontal overflow",
    async () => {
      const renderer = createEmailRenderer({
        brand: {
          name: "Acme Cloud",
          primaryColor: "#4f46e5",
          textColor: "#111827",
          backgroundColor: "#f3f4f6",
          logoUrl: null,
        },
        translator: createTranslator("en"),
      });
      const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
      try {
        const overflowing: string[] = [];
        for (const width of [375, 800]) {
          const page = await browser.newPage({ viewport: { width, height: 800 } });
          const overflows = () =>
            page.evaluate<boolean>("document.documentElement.scrollWidth > window.innerWidth");
          for (const locale of ["en", "de"]) {
            for (const kind of EMAIL_KINDS) {
              await page.setContent((await renderer.render(kind, locale, LONG_VALUES)).html);
              if (await overflows()) overflowing.push(`${kind}/${locale}/${width}`);
            }
          }
          // The check itself must be able to fail: a fixed-width block wider than the viewport.
          await page.setContent(`<div style="width:${width + 50}px">wide</div>`);
          expect(await overflows()).toBe(true);
          await page.close();
        }
        expect(overflowing).toEqual([]);
      } finally {
        await browser.close();
      }
    },
    30_000,
  );
});
