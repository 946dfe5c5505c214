import type { BrowserContext, Page } from "playwright-core";
import { expect } from "vitest";
import {
  accessibilityFindings,
  type BrowserFixture,
  type BrowserTests,
  confirmPassword,
  expectSaid,
  LOCALES,
  shotAndFit,
  visible,
  withTimeout,
} from "./fixture.js";

// ---- Issue 45: API keys of a user and of an organization, made in the page, used by a script ----
type Lang = "en" | "de";
/** The page's words the tests look for, in both languages. */
const WORDS = {
  created: (name: string) => ({
    en: `Key “${name}” created. Copy it now: it is shown only this once.`,
    de: `Schlüssel „${name}“ erstellt. Kopiere ihn jetzt: Er wird nur dieses eine Mal gezeigt.`,
  }),
  warning: {
    en: "Copy it now and keep it somewhere safe: you will not see it again.",
    de: "Kopiere ihn jetzt und bewahre ihn sicher auf: Du wirst ihn nicht wieder sehen.",
  },
  copied: { en: "The key is on the clipboard.", de: "Der Schlüssel ist in der Zwischenablage." },
  copy: { en: "Copy the key", de: "Schlüssel kopieren" },
  done: { en: "Done, I saved it", de: "Fertig, ich habe ihn gespeichert" },
  deleteNamed: (name: string) => ({ en: `Delete the key ${name}`, de: `Schlüssel ${name} löschen` }),
  deleted: (name: string) => ({ en: `Key “${name}” deleted.`, de: `Schlüssel „${name}“ gelöscht.` }),
  switchTo: (name: string) => ({ en: `Switch to ${name}`, de: `Zu ${name} wechseln` }),
  switched: (name: string) => ({
    en: `${name} is now your active organization.`,
    de: `${name} ist jetzt deine aktive Organisation.`,
  }),
  orgCreated: (name: string) => ({
    en: `Organization “${name}” created.`,
    de: `Organisation „${name}“ erstellt.`,
  }),
};
const say = expectSaid;

/** What the clipboard holds (the context was granted clipboard access). */
const clipboard = (page: Page) =>
  page.evaluate(() =>
    (
      globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }
    ).navigator.clipboard.readText(),
  );

/** A script's call of the app's own route with the key alone: no cookie, no session (Node's fetch). */
const withKey = async (f: BrowserFixture, method: string, path: string, key: string) => {
  const response = await fetch(`${f.base}${path}`, { method, headers: { "x-api-key": key } });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

/**
 * Creates a key with the form `form` after the step-up shown in `stepUpHost`, checks it is shown
 * once with its warning, copies it with the button and returns it (from the clipboard).
 */
async function createKey(
  page: Page,
  context: BrowserContext,
  f: BrowserFixture,
  lang: Lang,
  ids: { stepUpHost: string; form: string; box: string },
  name: string,
  fill: () => Promise<void> = async () => {},
) {
  expect(await visible(page, `#${ids.form}`)).toBe(false);
  await confirmPassword(page, undefined, `#${ids.stepUpHost} `);
  await expect.poll(() => visible(page, `#${ids.form}`)).toBe(true);
  await page.fill(`#${ids.form} [name=name]`, name);
  await fill();
  await page.click(`#${ids.form} button[type=submit]`);
  await say(page, lang, WORDS.created(name));
  const field = page.locator(`#${ids.box}-value`);
  const key = await field.inputValue();
  expect(key).toMatch(/^pc_[0-9A-Za-z]{49}$/);
  expect(await page.locator(`#${ids.box} .key-warning`).textContent()).toBe(WORDS.warning[lang]);
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: f.base });
  await page.getByRole("button", { name: WORDS.copy[lang], exact: true }).click();
  await say(page, lang, WORDS.copied);
  expect(await clipboard(page)).toBe(key);
  return key;
}

/** Done: the key leaves the page (nothing keeps it), only its start stays in the list. */
async function dismissKey(page: Page, lang: Lang, box: string, key: string) {
  await page.getByRole("button", { name: WORDS.done[lang], exact: true }).click();
  await expect.poll(() => visible(page, `#${box}`)).toBe(false);
  expect(await page.content()).not.toContain(key);
  expect(await page.content()).toContain(key.slice(0, 11));
}

/** The browser tests of this area, by name. */
export const apiKeysTests: BrowserTests = {
  "api keys (45a) - create a user's key after a step-up, see it once, copy it, a script uses it on the app's route, delete it after a confirmation: then 401, in English and German at 375 and 1280 px":
    withTimeout(90_000, async (f) => {
      for (const [locale, lang] of LOCALES) {
        const email = await f.createAccount(`api-keys-${lang}`);
        await f.inNewPage({ locale }, async (page, context) => {
          await f.signInAndWait(page, email);
          await page.click('nav a[href="/api-keys"]');
          await expect.poll(() => visible(page, "#keys-none")).toBe(true);
          const name = `CI ${lang}`;
          const ids = { stepUpHost: "keys-step-up", form: "keys-create", box: "keys-new" };
          const key = await createKey(page, context, f, lang, ids, name);
          await shotAndFit(f, page, `45a-new-key-${lang}`);
          expect(await accessibilityFindings(page, `api keys (${lang})`)).toEqual([]);

          const me = (await page.evaluate(() => fetch("/api/auth/me").then((reply) => reply.json()))) as {
            id: string;
          };
          const hello = await withKey(f, "GET", "/api/hello", key);
          expect(hello.status).toBe(200);
          expect(hello.body.message).toBe(`Hello, user ${me.id}`);
          // A user's key has no organization: the permission routes refuse it.
          const projects = await withKey(f, "GET", "/api/projects", key);
          expect([projects.status, projects.body.code]).toEqual([403, "NO_ACTIVE_ORGANIZATION"]);

          await dismissKey(page, lang, "keys-new", key);
          await expect.poll(() => page.locator("#keys-list li").count()).toBe(1);
          await expect.poll(() => page.locator("#keys-list li").textContent()).toContain(name);
          await shotAndFit(f, page, `45a-list-${lang}`);
          await page.getByRole("button", { name: WORDS.deleteNamed(name)[lang], exact: true }).click();
          await expect.poll(() => visible(page, "#keys-confirm")).toBe(true);
          await page.click("#keys-confirm button.danger");
          await say(page, lang, WORDS.deleted(name));
          await expect.poll(() => visible(page, "#keys-none")).toBe(true);
          const after = await withKey(f, "GET", "/api/hello", key);
          expect([after.status, after.body.code]).toEqual([401, "API_KEY_INVALID"]);
        })();
      }
    }),

  "api keys (45b) - an organization's key made on the organization page with project:read reads the projects and may not create one, in English and German at 375 and 1280 px":
    withTimeout(90_000, async (f) => {
      for (const [locale, lang] of LOCALES) {
        const owner = await f.createAccount(`org-keys-${lang}`);
        const organization = `Keys ${lang} ${f.accounts}`;
        await f.inNewPage({ locale }, async (page, context) => {
          await f.signInAndWait(page, owner);
          await page.click('nav a[href="/organizations"]');
          await page.fill("#org-create [name=name]", organization);
          await page.click("#org-create button[type=submit]");
          await say(page, lang, WORDS.orgCreated(organization));
          await page.getByRole("button", { name: WORDS.switchTo(organization)[lang], exact: true }).click();
          await say(page, lang, WORDS.switched(organization));
          await expect.poll(() => visible(page, "#org-keys-card")).toBe(true);
          await expect.poll(() => visible(page, "#org-keys-none")).toBe(true);
          const name = `Deploy ${lang}`;
          const ids = { stepUpHost: "org-keys-step-up", form: "org-keys-create", box: "org-keys-new" };
          const key = await createKey(page, context, f, lang, ids, name, () =>
            page.locator("#org-keys-permissions").getByLabel("project:read", { exact: true }).check(),
          );
          await shotAndFit(f, page, `45b-new-key-${lang}`);

          const read = await withKey(f, "GET", "/api/projects", key);
          expect(read.status).toBe(200);
          expect(read.body.organizationId).toEqual(expect.any(String));
          const write = await withKey(f, "POST", "/api/projects", key);
          expect([write.status, write.body.code]).toEqual([403, "PERMISSION_DENIED"]);

          await dismissKey(page, lang, "org-keys-new", key);
          const item = page.locator("#org-keys-list li");
          await expect.poll(() => item.count()).toBe(1);
          expect(await item.locator(".tag").allTextContents()).toEqual(["project:read"]);
          await shotAndFit(f, page, `45b-list-${lang}`);
          expect(await accessibilityFindings(page, `organization api keys (${lang})`)).toEqual([]);
        })();
      }
    }),
};
