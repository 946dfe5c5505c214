import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqlStores } from "@portcullis/store-sql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ImportProgress, importAccounts } from "./import-accounts.js";
import { jsonlSource, parseLine } from "./jsonl-source.js";
import { openTarget } from "./open-target.js";

describe("jsonlSource", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "portcullis-jsonl-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("parseLine - reads an account, with ids and subjects as text", () => {
    const text = JSON.stringify({
      id: 42,
      email: "a@example.test",
      identities: [{ provider: "github", subject: 7 }],
    });
    expect(parseLine(text, 3)).toEqual({
      line: 3,
      account: {
        id: "42",
        email: "a@example.test",
        emailVerified: false,
        name: null,
        passwordHash: null,
        identities: [{ provider: "github", subject: "7" }],
      },
    });
  });

  it("parseLine - a line of the wrong shape is a skipped row saying why", () => {
    const cases: [unknown, string][] = [
      [[1, 2], "not a JSON object"],
      [{ email: "" }, "no email"],
      [{ email: "a@example.test", emailVerified: "yes" }, "emailVerified is not a boolean"],
      [{ email: "a@example.test", passwordHash: 5 }, "passwordHash is not a string"],
      [
        { email: "a@example.test", identities: [{ provider: "github" }] },
        "identities is not a list of { provider, subject }",
      ],
      [{ email: "a@example.test", id: { nested: true } }, "id is not a string or an integer"],
      [{ email: "a@example.test", totpSecret: 7 }, "totpSecret is not a string"],
      [{ email: "a@example.test", recoveryCodes: "a,b" }, "recoveryCodes is not a list of strings"],
      [
        { email: "a@example.test", passkeys: [{ id: "x", publicKey: "y" }] },
        "passkeys is not a list of { id, publicKey, counter }",
      ],
    ];
    for (const [value, detail] of cases)
      expect(parseLine(JSON.stringify(value), 1)).toEqual({ line: 1, skip: "invalid_row", detail });
    expect(parseLine("nope", 9)).toMatchObject({ line: 9, skip: "invalid_json" });
  });

  it("rows - streams the lines with their numbers, blank lines skipped but counted", async () => {
    const file = join(dir, "lines.jsonl");
    await writeFile(file, `{"email":"a@example.test"}\r\n\r\n{"email":"b@example.test"}\n`);
    const lines: number[] = [];
    const source = jsonlSource(file, { name: "clerk" });
    for await (const row of source.rows()) lines.push(row.line);
    expect(lines).toEqual([1, 3]);
    expect(source.name).toBe("jsonl:clerk");
  });

  it("importAccounts - reports progress every N rows and at the end; keeps the first N line numbers per reason", async () => {
    const file = join(dir, "many.jsonl");
    const rows = Array.from({ length: 25 }, (_, i) =>
      i % 5 === 4 ? "bad" : JSON.stringify({ email: `user${i}@example.test` }),
    );
    await writeFile(file, rows.join("\n"));
    const target = await openTarget(`sqlite:${join(dir, "many.db")}`);
    try {
      await createSqlStores({ db: target.db }).migrate();
      const progress: ImportProgress[] = [];
      const summary = await importAccounts({
        source: jsonlSource(file),
        target: { db: target.db },
        progressEveryRows: 10,
        firstLines: 3,
        onProgress: (p) => progress.push(p),
      });
      expect(progress).toEqual([
        { rows: 10, imported: 8, updated: 0, skipped: 2, done: false },
        { rows: 20, imported: 16, updated: 0, skipped: 4, done: false },
        { rows: 25, imported: 20, updated: 0, skipped: 5, done: true },
      ]);
      expect(summary.skipped).toEqual({ invalid_json: { count: 5, lines: [5, 10, 15] } });
    } finally {
      await target.close();
    }
  });
});
