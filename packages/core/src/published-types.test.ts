import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { optionDocs } from "./option-docs.js";

/**
 * What an integrator's editor shows on hover comes from the published `dist/index.d.ts`, not
 * from the source: this test reads the built declarations (run `pnpm --filter @portcullis/core
 * build` first; `pnpm test` and CI build before testing) and checks that every option's TSDoc
 * made it there.
 */
const SOURCE = fileURLToPath(new URL("./options/auth-options.ts", import.meta.url));
const PUBLISHED = fileURLToPath(new URL("../dist/index.d.ts", import.meta.url));

describe("published types", () => {
  it("AuthOptions - every option's TSDoc survives into dist/index.d.ts (what hover shows)", () => {
    if (!existsSync(PUBLISHED)) throw new Error(`build first: no ${PUBLISHED}`);
    const source = optionDocs(SOURCE);
    const published = optionDocs(PUBLISHED);
    expect(source.size).toBeGreaterThan(60);
    expect([...source.values()].filter((doc) => doc === "")).toEqual([]);
    expect(published).toEqual(source);
    expect(published.get("trustProxy")).toContain("X-Forwarded-For");
    expect(published.get("email.loginAlerts")).toContain("does not know");
  });
});
