import { randomBytes } from "node:crypto";
import { readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "libsql";
import type { Page } from "playwright-core";
import { expect } from "vitest";
import {
  accessibilityFindings,
  type BrowserFixture,
  type BrowserTests,
  confirmPassword,
  createActiveOrganization,
  expectSaid,
  type Lang,
  LOCALES,
  PASSWORD,
  shotAndFit,
  signedInAs,
  visible,
  withTimeout,
} from "./fixture.js";

// ---- Issue 47: the audit log of an organization and of the deployment ------------------------
/** The page's words the tests look for, in both languages. */
const WORDS = {
  changed: { en: "Organization changed", de: "Organisation geändert" },
  created: { en: "Organization created", de: "Organisation erstellt" },
  you: (email: string) => ({ en: `${email} (you)`, de: `${email} (du)` }),
  browser: { en: "Chrome on Linux", de: "Chrome unter Linux" },
  shown: (count: number) => ({
    en: count === 1 ? "1 entry shown" : `${count} entries shown`,
    de: count === 1 ? "1 Eintrag angezeigt" : `${count} Einträge angezeigt`,
  }),
  none: { en: "No entry matches.", de: "Kein Eintrag passt." },
  noSuchActor: { en: "No account has this address.", de: "Kein Konto hat diese Adresse." },
  fromAfterTo: {
    en: "The first day must not be after the last.",
    de: "Der erste Tag darf nicht nach dem letzten liegen.",
  },
  noActive: {
    en: "Pick an active organization on the organizations page first.",
    de: "Wähle zuerst auf der Seite der Organisationen eine aktive Organisation.",
  },
  holds: {
    en: /^The chain holds: [\d,]+ entr(y|ies) checked\.$/,
    de: /^Die Kette ist intakt: [\d.]+ (Eintrag|Einträge) geprüft\.$/,
  },
  /** The organization's first entry changed: the walk stops at it, the first checked. */
  broken: (seq: number) => ({
    en: new RegExp(
      `^The chain is broken at entry #${seq} \\(\\w+\\): its content does not match its hash\\. 1 entry checked up to it\\.$`,
    ),
    de: new RegExp(
      `^Die Kette ist bei Eintrag #${seq} \\(\\w+\\) unterbrochen: sein Inhalt passt nicht zu seinem Hash\\. 1 Eintrag bis dorthin geprüft\\.$`,
    ),
  }),
};
const say = expectSaid;
/** Organization changes each owner makes: more than a page (20), less than two. */
const CHANGES = 22;
const rows = (page: Page, prefix: string) => page.locator(`#${prefix}-rows tr`);
/** What a test reads of an entry's row in the page (its `data-*` and its `<time>`). */
interface ShownRow {
  dataset: { id?: string; seq?: string };
  querySelector(selector: string): { getAttribute(name: string): string | null } | null;
}
/** The cells of the `index`th row (0: the newest). */
const cells = (page: Page, prefix: string, index = 0) => rows(page, prefix).nth(index).locator("td > div");

/**
 * As the signed-in `owner`: creates an organization in the page and makes it active, then renames it
 * `CHANGES` times through the API (each an `organization.updated` entry); returns its id.
 */
async function organizationWithEntries(f: BrowserFixture, page: Page, lang: Lang) {
  const name = `Audit ${lang} ${f.accounts}`;
  await createActiveOrganization(page, lang, name);
  const { id, statuses } = await page.evaluate(
    async ({ count, name }) => {
      const me = (await (await fetch("/api/auth/me")).json()) as { activeOrganization: { id: string } };
      const id = me.activeOrganization.id;
      const statuses: number[] = [];
      for (let index = 1; index <= count; index++) {
        const body = JSON.stringify({ name: `${name} ${index}` });
        const init = { method: "PATCH", headers: { "content-type": "application/json" }, body };
        statuses.push((await fetch(`/api/auth/organizations/${id}`, init)).status);
      }
      return { id, statuses };
    },
    { count: CHANGES, name },
  );
  expect(statuses).toEqual(Array(CHANGES).fill(200));
  return id;
}

/** Opens the active organization's audit log from the organization page and waits for its first page. */
async function openOrganizationLog(page: Page, base: string) {
  await page.goto(`${base}/organizations`);
  await page.click("#org-audit-link");
  await expect.poll(() => new URL(page.url()).pathname).toBe("/organizations/audit-log");
  await expect.poll(() => rows(page, "org-audit").count()).toBe(20);
}

/** Signs `email` in on the app at `base` (another app than the fixture's, or its own). */
async function signInAt(page: Page, base: string, email: string) {
  await page.goto(`${base}/login`);
  await page.fill("#login [name=email]", email);
  await page.fill("#login [name=password]", PASSWORD);
  await page.click("#login button[type=submit]");
  await signedInAs(page, email);
}

/** The admin of ADMIN_EMAILS for `lang` on the app of `auth`, made once. */
async function adminOn(example: BrowserFixture["example"], lang: Lang) {
  const email = `back-office-${lang}@example.test`;
  if (!(await example.stores.users.findByEmail(email)))
    await example.auth.host.createUser({}, { email, password: PASSWORD, emailVerified: true });
  return email;
}

/** Creates an organization through the API as the signed-in user; returns its id. */
const createOrganization = (page: Page, name: string) =>
  page.evaluate(async (name) => {
    const init = {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name }),
    };
    const answer = (await (await fetch("/api/auth/organizations", init)).json()) as {
      organization: { id: string };
    };
    return answer.organization.id;
  }, name);

/** Opens the deployment's audit log at `base` from the back office, after the step-up there. */
async function openDeploymentLog(page: Page, base: string) {
  await page.goto(`${base}/admin`);
  await expect.poll(() => visible(page, "#admin-step-up #step-up")).toBe(true);
  await confirmPassword(page, PASSWORD, "#admin-step-up ");
  await expect.poll(() => visible(page, "#admin-audit-link")).toBe(true);
  await page.click("#admin-audit-link");
  await expect.poll(() => visible(page, "#admin-audit-tools")).toBe(true);
  await expect.poll(() => rows(page, "admin-audit").count()).toBeGreaterThan(0);
}

/** Verifies the chain with the organization field at `organizationId` ("" for the deployment's). */
async function verifyChain(page: Page, organizationId: string) {
  await page.fill("#admin-audit-filters [name=organizationId]", organizationId);
  const answered = page.waitForResponse((r) => r.url().includes("/api/auth/admin/audit-log/verify"));
  await page.click("#admin-audit-verify");
  expect((await answered).status()).toBe(200);
  await expect.poll(() => visible(page, "#admin-audit-verify-result")).toBe(true);
  return page.locator("#admin-audit-verify-result");
}

/** The browser tests of this area, by name. */
export const auditLogTests: BrowserTests = {
  "audit log (47a) - the organization's log opened from its page: time in the page's language, a readable event, the actor, IP and browser, twenty at a time with load more by cursor, in English and German at 375 and 1280 px":
    withTimeout(90_000, async (f) => {
      for (const [locale, lang] of LOCALES) {
        const owner = await f.createAccount(`audit-org-${lang}`);
        await f.inNewPage({ locale }, async (page) => {
          // No active organization yet: the page says where to pick one, and asks nothing.
          await f.signInAndWait(page, owner);
          await page.goto(`${f.base}/organizations/audit-log`);
          await expect.poll(() => page.locator("#org-audit-notice").textContent()).toBe(WORDS.noActive[lang]);
          expect(await visible(page, "#org-audit-tools")).toBe(false);
          await organizationWithEntries(f, page, lang);
          await openOrganizationLog(page, f.base);
          expect(await visible(page, "#org-audit-more")).toBe(true);
          const [time, event, actor, , ip, browser] = await cells(page, "org-audit").allTextContents();
          expect(event).toBe(`${WORDS.changed[lang]}organization.updated`);
          expect(actor).toBe(WORDS.you(owner)[lang]);
          expect(ip).toMatch(/127\.0\.0\.1$/);
          expect(browser).toBe(WORDS.browser[lang]);
          // The time: the entry's instant, to the second, in the page's language.
          const at = (await rows(page, "org-audit").first().locator("time").getAttribute("datetime")) ?? "";
          expect(Date.now() - Date.parse(at)).toBeLessThan(120_000);
          const local = new Intl.DateTimeFormat(lang, { dateStyle: "medium", timeStyle: "medium" });
          expect(time).toBe(local.format(new Date(at)));
          const headers = await page.locator("#org-audit-table th[scope=col]").allTextContents();
          expect(headers).toHaveLength(6);
          await shotAndFit(f, page, `47a-organization-log-${lang}`);
          expect(await accessibilityFindings(page, `organization audit log (${lang})`)).toEqual([]);

          // The next page by the cursor: the older entries under the first ones, down to the creation.
          const first = await rows(page, "org-audit").first().getAttribute("data-id");
          expect(first).toBeTruthy();
          const cursor = page.waitForRequest(
            (r) => r.url().includes("/audit-log?") && r.url().includes("cursor="),
          );
          await page.click("#org-audit-more");
          await cursor;
          await expect.poll(() => visible(page, "#org-audit-more")).toBe(false);
          const count = await rows(page, "org-audit").count();
          expect(count).toBeGreaterThanOrEqual(CHANGES + 1);
          expect(await rows(page, "org-audit").first().getAttribute("data-id")).toBe(first);
          // Newest first by their time, each entry once, and nothing of the deployment's chain (no seq).
          const shown = await rows(page, "org-audit").evaluateAll((trs) =>
            trs.map((tr) => {
              const row = tr as unknown as ShownRow;
              const at = row.querySelector("time")?.getAttribute("datetime") ?? "";
              return { id: row.dataset.id ?? "", seq: row.dataset.seq, at: Date.parse(at) };
            }),
          );
          const times = shown.map((row) => row.at);
          expect(times.every(Number.isFinite)).toBe(true);
          expect(times).toEqual([...times].sort((a, b) => b - a));
          expect(new Set(shown.map((row) => row.id)).size).toBe(count);
          expect(shown.every((row) => row.id !== "" && row.seq === undefined)).toBe(true);
          expect(await rows(page, "org-audit").filter({ hasText: WORDS.created[lang] }).count()).toBe(1);
          expect(await page.locator("#org-audit-count").textContent()).toBe(WORDS.shown(count)[lang]);
          await shotAndFit(f, page, `47a-organization-log-all-${lang}`);
        })();
      }
    }),

  "audit log (47b) - the organization's log filtered by event, by a member's address (an unknown one refused under its field, nothing asked) and by days, in English and German at 375 and 1280 px":
    withTimeout(90_000, async (f) => {
      for (const [locale, lang] of LOCALES) {
        const owner = await f.createAccount(`audit-filters-${lang}`);
        await f.inNewPage({ locale }, async (page) => {
          await f.signInAndWait(page, owner);
          await organizationWithEntries(f, page, lang);
          await openOrganizationLog(page, f.base);
          const asked: string[] = [];
          page.on("request", (r) => r.url().includes("/audit-log") && asked.push(r.url()));
          const form = "#org-audit-filters";
          const show = async (count: number) => {
            await page.click(`${form} button[type=submit]`);
            await say(page, lang, WORDS.shown(count));
            expect(await rows(page, "org-audit").count()).toBe(count);
          };
          await page.selectOption(`${form} [name=type]`, "organization.created");
          await show(1);
          expect(await cells(page, "org-audit").nth(1).textContent()).toContain(WORDS.created[lang]);
          expect(new URL(asked.at(-1) ?? "").searchParams.get("type")).toBe("organization.created");

          await page.fill(`${form} [name=actor]`, "nobody@example.test");
          const before = asked.length;
          await page.click(`${form} button[type=submit]`);
          await expect
            .poll(() => page.locator(`${form} .field-error`).textContent())
            .toBe(WORDS.noSuchActor[lang]);
          expect(await page.locator(`${form} [name=actor]`).getAttribute("aria-invalid")).toBe("true");
          expect(asked.length).toBe(before);
          await page.fill(`${form} [name=actor]`, owner.toUpperCase());
          await show(1);
          expect(await cells(page, "org-audit").nth(2).textContent()).toBe(WORDS.you(owner)[lang]);
          await page.fill(`${form} [name=actor]`, "no-such-actor-id");
          await page.click(`${form} button[type=submit]`);
          await say(page, lang, WORDS.shown(0));
          expect(await page.locator("#org-audit-empty").textContent()).toBe(WORDS.none[lang]);
          expect(await visible(page, "#org-audit-table")).toBe(false);

          // Days: today (the viewer's) holds every entry; from tomorrow none; the first after the last refused.
          const [today, tomorrow, start, end] = await page.evaluate(() => {
            const now = new Date();
            const start = new Date(now.getFullYear(), now.getMonth(), now.getDate());
            const end = new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1);
            return [
              start.toLocaleDateString("en-CA"),
              end.toLocaleDateString("en-CA"),
              start.toISOString(),
              end.toISOString(),
            ];
          });
          await page.fill(`${form} [name=actor]`, "");
          await page.selectOption(`${form} [name=type]`, "");
          await page.fill(`${form} [name=from]`, tomorrow as string);
          await page.fill(`${form} [name=to]`, today as string);
          await page.click(`${form} button[type=submit]`);
          await expect
            .poll(() => page.locator(`${form} .field-error`).textContent())
            .toBe(WORDS.fromAfterTo[lang]);
          await shotAndFit(f, page, `47b-days-refused-${lang}`);
          await page.fill(`${form} [name=from]`, today as string);
          await show(20);
          const query = new URL(asked.at(-1) ?? "").searchParams;
          expect([query.get("from"), query.get("to")]).toEqual([start, end]);
          await page.fill(`${form} [name=from]`, tomorrow as string);
          await page.fill(`${form} [name=to]`, "");
          await page.click(`${form} button[type=submit]`);
          await say(page, lang, WORDS.shown(0));
          await shotAndFit(f, page, `47b-filtered-${lang}`);
        })();
      }
    }),

  "audit log (47c) - the export links download the filtered entries, as NDJSON (one JSON entry a line) and as CSV (a header, a row per entry), in English and German":
    withTimeout(90_000, async (f) => {
      for (const [locale, lang] of LOCALES) {
        const owner = await f.createAccount(`audit-export-${lang}`);
        await f.inNewPage({ locale }, async (page) => {
          await f.signInAndWait(page, owner);
          const id = await organizationWithEntries(f, page, lang);
          await openOrganizationLog(page, f.base);
          await page.selectOption("#org-audit-filters [name=type]", "organization.updated");
          await page.click("#org-audit-filters button[type=submit]");
          await say(page, lang, WORDS.shown(20));
          const download = async (format: string) => {
            const [file] = await Promise.all([
              page.waitForEvent("download"),
              page.click(`#org-audit-${format}`),
            ]);
            expect(file.suggestedFilename()).toMatch(new RegExp(`\\.${format}$`));
            expect(new URL(file.url()).searchParams.get("format")).toBe(format);
            return readFile(await file.path(), "utf8");
          };
          const lines = (await download("ndjson")).trim().split("\n");
          const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
          expect(entries).toHaveLength(CHANGES);
          for (const entry of entries) {
            expect(entry).toMatchObject({ type: "organization.updated", organizationId: id });
            // Nothing of the rest of the deployment: no place in its chain, no link to its entries.
            expect(Object.keys(entry)).not.toContain("seq");
            expect(Object.keys(entry)).not.toContain("prevHash");
          }
          const ids = entries.map((entry) => entry.id as string);
          expect(new Set(ids).size).toBe(CHANGES);
          const csv = (await download("csv")).trim().split(/\r?\n/);
          const header = csv[0]?.split(",") ?? [];
          expect(header.slice(0, 4)).toEqual(["id", "at", "type", "actorType"]);
          expect(header).not.toContain("seq");
          expect(header).not.toContain("prevHash");
          expect(csv).toHaveLength(CHANGES + 1);
          for (const row of csv.slice(1)) expect(row).toContain(",organization.updated,");
          // Nothing was left on the page for the download: the entries shown are as before.
          expect(await rows(page, "org-audit").count()).toBe(20);
        })();
      }
    }),

  "audit log (47d) - the back office links the deployment's log: seven columns, filtered by organization and by the admin's address, the chain verified for an organization and for the deployment, in English and German at 375 and 1280 px":
    withTimeout(90_000, async (f) => {
      for (const [locale, lang] of LOCALES) {
        const admin = await adminOn(f.example, lang);
        await f.inNewPage({ locale }, async (page) => {
          await f.signInAndWait(page, admin);
          const id = await createOrganization(page, `Deployment ${lang} ${f.accounts}`);
          await openDeploymentLog(page, f.base);
          expect(await page.locator("#admin-audit-table th[scope=col]").count()).toBe(7);
          const form = "#admin-audit-filters";
          await page.fill(`${form} [name=organizationId]`, id);
          await page.click(`${form} button[type=submit]`);
          await say(page, lang, WORDS.shown(1));
          const [, event, actor, , organization] = await cells(page, "admin-audit").allTextContents();
          expect([event, actor, organization]).toEqual([
            `${WORDS.created[lang]}organization.created`,
            WORDS.you(admin)[lang],
            id,
          ]);
          await page.fill(`${form} [name=organizationId]`, "");
          await page.fill(`${form} [name=actor]`, admin);
          await page.click(`${form} button[type=submit]`);
          await expect.poll(() => rows(page, "admin-audit").count()).toBeGreaterThan(1);
          const actors = await rows(page, "admin-audit").evaluateAll((trs) =>
            trs.map((tr) => (tr as unknown as { cells: { textContent: string }[] }).cells[2]?.textContent),
          );
          // The admin's own calls, and the back office's ("Admin …"): each names the admin.
          for (const name of actors) expect(name).toContain(WORDS.you(admin)[lang]);

          const result = await verifyChain(page, id);
          await expect.poll(() => result.textContent()).toMatch(WORDS.holds[lang]);
          expect(await result.getAttribute("class")).toBe("audit-verify ok");
          const organizationChain = await result.textContent();
          await verifyChain(page, "");
          await expect.poll(() => result.textContent()).not.toBe(organizationChain);
          expect(await result.textContent()).toMatch(WORDS.holds[lang]);
          await shotAndFit(f, page, `47d-deployment-log-${lang}`);
          expect(await accessibilityFindings(page, `deployment audit log (${lang})`)).toEqual([]);
        })();
      }
    }),

  "audit log (47e) - an entry changed in the database (SQLite) breaks the chain: verify names it, in English and German at 375 and 1280 px":
    withTimeout(90_000, async (f) => {
      const file = join(tmpdir(), `portcullis-audit-${randomBytes(6).toString("hex")}.db`);
      const other = await f.openOther({
        DATABASE_URL: `sqlite:${file}`,
        ADMIN_EMAILS: "back-office-en@example.test,back-office-de@example.test",
      });
      const database = new Database(file);
      try {
        for (const [locale, lang] of LOCALES) {
          const admin = await adminOn(other.example, lang);
          await f.inNewPage({ locale }, async (page) => {
            await signInAt(page, other.base, admin);
            const id = await createOrganization(page, `Tampered ${lang}`);
            await openDeploymentLog(page, other.base);
            const result = await verifyChain(page, id);
            await expect.poll(() => result.textContent()).toMatch(WORDS.holds[lang]);
            const row = database
              .prepare("select seq from portcullis_audit_log where organization_id = ? order by seq limit 1")
              .get(id) as { seq: number | bigint };
            database.prepare("update portcullis_audit_log set ip = '203.0.113.9' where seq = ?").run(row.seq);
            await verifyChain(page, id);
            await expect.poll(() => result.textContent()).toMatch(WORDS.broken(Number(row.seq))[lang]);
            expect(await result.getAttribute("class")).toBe("audit-verify broken");
            expect(await page.locator("#status").getAttribute("class")).toBe("error");
            await shotAndFit(f, page, `47e-chain-broken-${lang}`);
          })();
        }
      } finally {
        database.close();
        await other.close();
        await rm(file, { force: true });
        await rm(`${file}-wal`, { force: true });
        await rm(`${file}-shm`, { force: true });
      }
    }),
};
