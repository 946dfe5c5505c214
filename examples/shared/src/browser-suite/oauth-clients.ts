import type { Page } from "playwright-core";
import { expect } from "vitest";
import {
  accessibilityFindings,
  type BrowserFixture,
  type BrowserTests,
  confirmPassword,
  expectSaid,
  LOCALES,
  PASSWORD,
  shotAndFit,
  signedInAs,
  visible,
  withTimeout,
} from "./fixture.js";

// ---- Issue 46: the back office's OAuth clients (/admin/oauth/clients) ----------------------------
type Lang = "en" | "de";
/** The admins of the provider's example (its ADMIN_EMAILS), one per language. */
const ADMINS = { en: "clients-admin-en@example.test", de: "clients-admin-de@example.test" };
/** The page's words the tests look for, in both languages. */
const WORDS = {
  title: { en: "OAuth clients", de: "OAuth-Clients" },
  needRedirect: {
    en: "Sign-in in the browser needs at least one redirect URI.",
    de: "Die Anmeldung im Browser braucht mindestens eine Weiterleitungsadresse.",
  },
  created: (name: string) => ({
    en: `The client ${name} was added.`,
    de: `Der Client ${name} wurde hinzugefügt.`,
  }),
  secretTitle: (name: string) => ({ en: `The secret of ${name}`, de: `Das Geheimnis von ${name}` }),
  secretWarning: {
    en: "Copy it now and put it in the app's settings: you will not see it again.",
    de: "Kopiere es jetzt und trage es in der App ein: Du wirst es nicht wieder sehen.",
  },
  rotatedWarning: {
    en: "The old secret no longer works. Copy the new one now and put it in the app's settings: you will not see it again.",
    de: "Das alte Geheimnis funktioniert nicht mehr. Kopiere das neue jetzt und trage es in der App ein: Du wirst es nicht wieder sehen.",
  },
  done: { en: "Done, I saved it", de: "Fertig, ich habe es gespeichert" },
  kind: { en: /^Confidential · added .+$/, de: /^Vertraulich · hinzugefügt am .+$/ },
  tags: {
    en: ["Browser sign-in", "Refresh", "Client credentials", "openid", "projects:read"],
    de: ["Browser-Anmeldung", "Refresh", "Client Credentials", "openid", "projects:read"],
  },
  editNamed: (name: string) => ({ en: `Edit ${name}`, de: `${name} bearbeiten` }),
  editTitle: (name: string) => ({ en: `Edit ${name}`, de: `${name} bearbeiten` }),
  save: { en: "Save the changes", de: "Änderungen speichern" },
  updated: (name: string) => ({
    en: `The changes to ${name} were saved.`,
    de: `Die Änderungen an ${name} wurden gespeichert.`,
  }),
  rotateNamed: (name: string) => ({ en: `New secret for ${name}`, de: `Neues Geheimnis für ${name}` }),
  yesRotate: { en: "Yes, a new secret", de: "Ja, neues Geheimnis" },
  rotated: (name: string) => ({ en: `${name} has a new secret.`, de: `${name} hat ein neues Geheimnis.` }),
  deleteNamed: (name: string) => ({ en: `Delete ${name}`, de: `${name} löschen` }),
  confirmDelete: (name: string) => ({
    en: `Delete ${name}? The access its users gave it ends, and its tokens stop working at once.`,
    de: `${name} löschen? Der Zugriff, den seine Benutzer ihm gegeben haben, endet, und seine Tokens funktionieren sofort nicht mehr.`,
  }),
  yesDelete: { en: "Yes, delete it", de: "Ja, löschen" },
  deleted: (name: string) => ({
    en: `The client ${name} was deleted.`,
    de: `Der Client ${name} wurde gelöscht.`,
  }),
  none: { en: "No client yet.", de: "Noch kein Client." },
  off: {
    en: "The OAuth provider is not turned on in this app (OAUTH_PROVIDER).",
    de: "Der OAuth-Anbieter ist in dieser App nicht eingeschaltet (OAUTH_PROVIDER).",
  },
};
const say = expectSaid;

/** The example with the OAuth provider on and ADMINS as its admins: `body` runs against it, then it stops. */
async function withAdminProvider(f: BrowserFixture, body: (base: string) => Promise<void>): Promise<void> {
  // The UI's `/ui/config` reads OAUTH_PROVIDER from the environment while this app builds its pages.
  process.env.OAUTH_PROVIDER = "true";
  const other = await f
    .openOther({ OAUTH_PROVIDER: "true", ADMIN_EMAILS: Object.values(ADMINS).join(",") })
    .finally(() => delete process.env.OAUTH_PROVIDER);
  try {
    for (const email of Object.values(ADMINS))
      await other.example.auth.host.createUser({}, { email, password: PASSWORD, emailVerified: true });
    await body(other.base);
  } finally {
    await other.close();
  }
}

/** A client-credentials request at the provider's token endpoint with `secret`: its status and error. */
async function clientCredentials(base: string, clientId: string, secret: string) {
  const response = await fetch(`${base}/api/auth/oauth2/token`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString("base64")}`,
    },
    body: new URLSearchParams({ grant_type: "client_credentials", scope: "projects:read" }),
  });
  const answer = (await response.json()) as { error?: string; access_token?: string };
  return { status: response.status, error: answer.error, token: answer.access_token };
}

/** Signs the admin in on `base`, confirms the password in the back office and opens the clients from its card. */
async function openClients(page: Page, base: string, email: string) {
  await page.goto(`${base}/login`);
  await page.fill("#login [name=email]", email);
  await page.fill("#login [name=password]", PASSWORD);
  await page.click("#login button[type=submit]");
  await signedInAs(page, email);
  await page.click("#nav-admin");
  await expect.poll(() => visible(page, "#admin-step-up #step-up")).toBe(true);
  await confirmPassword(page);
  await expect.poll(() => visible(page, "#admin-clients-card")).toBe(true);
  await page.click("#admin-clients-link");
  await page.waitForURL((url) => url.pathname === "/admin/oauth/clients");
  // The step-up of the back office holds here too: the tools show at once.
  await expect.poll(() => visible(page, "#clients-tools")).toBe(true);
}

/** The secret shown once: its card in `lang`, its value; Done forgets it (nowhere in the page after). */
async function takeSecret(f: BrowserFixture, page: Page, lang: Lang, name: string, rotated: boolean) {
  await expect.poll(() => visible(page, "#clients-secret")).toBe(true);
  expect(await page.locator("#clients-secret-title").textContent()).toBe(WORDS.secretTitle(name)[lang]);
  expect(await page.locator("#clients-secret .key-warning").textContent()).toBe(
    (rotated ? WORDS.rotatedWarning : WORDS.secretWarning)[lang],
  );
  const secret = await page.locator("#clients-secret-value").inputValue();
  expect(secret.length).toBeGreaterThanOrEqual(32);
  await shotAndFit(f, page, `46e-client-${rotated ? "rotated" : "secret"}-${lang}`);
  await page.getByRole("button", { name: WORDS.done[lang], exact: true }).click();
  expect(await visible(page, "#clients-secret")).toBe(false);
  expect(await page.content()).not.toContain(secret);
  return secret;
}

/** Adds a confidential client with the form (after the form's own refusal of a missing redirect URI): its ID and secret. */
async function addClient(f: BrowserFixture, page: Page, base: string, lang: Lang, name: string) {
  await page.fill("#clients-form [name=name]", name);
  await page.click("#clients-form button[type=submit]");
  await expect
    .poll(() => page.locator("#clients-form .field-error").textContent())
    .toBe(WORDS.needRedirect[lang]);
  await say(page, lang, WORDS.needRedirect);
  await page.fill("#clients-form [name=redirectUris]", "https://reports.example/callback");
  await page.check('#clients-grants input[value="client_credentials"]');
  await page.check('#clients-scopes input[value="openid"]');
  await page.check('#clients-scopes input[value="projects:read"]');
  await page.click("#clients-form button[type=submit]");
  await say(page, lang, WORDS.created(name));
  const secret = await takeSecret(f, page, lang, name, false);
  const item = page.locator("#clients-list li", { hasText: name });
  await expect.poll(() => item.count()).toBe(1);
  const clientId = (await item.locator(".client-id").textContent()) ?? "";
  expect(clientId).toMatch(/^pcc_/);
  expect(await item.locator(".client-kind").textContent()).toMatch(WORDS.kind[lang]);
  expect(await item.locator(".client-redirects li").allTextContents()).toEqual([
    "https://reports.example/callback",
  ]);
  expect(await item.locator(".tag").allTextContents()).toEqual(WORDS.tags[lang]);
  // The secret works at the token endpoint (client credentials, the example's API scope).
  expect((await clientCredentials(base, clientId, secret)).status).toBe(200);
  return { clientId, secret };
}

/** Edit: the form filled in with the client, its name changed and saved. */
async function renameClient(page: Page, lang: Lang, name: string, renamed: string) {
  await page.getByRole("button", { name: WORDS.editNamed(name)[lang], exact: true }).click();
  expect(await page.locator("#clients-form-title").textContent()).toBe(WORDS.editTitle(name)[lang]);
  expect(await page.locator("#clients-form [name=redirectUris]").inputValue()).toBe(
    "https://reports.example/callback",
  );
  expect(await visible(page, "#clients-kind")).toBe(false);
  await page.fill("#clients-form [name=name]", renamed);
  await page.getByRole("button", { name: WORDS.save[lang], exact: true }).click();
  await say(page, lang, WORDS.updated(renamed));
  await expect.poll(() => page.locator("#clients-list .client-name").allTextContents()).toEqual([renamed]);
}

/** The client's whole life on the page, in `lang`: added, its secret once, listed, changed, a new secret, deleted. */
async function clientLife(f: BrowserFixture, page: Page, base: string, lang: Lang) {
  await openClients(page, base, ADMINS[lang]);
  expect(await page.locator("#oauth-clients h1").textContent()).toBe(WORDS.title[lang]);
  await expect.poll(() => visible(page, "#clients-none")).toBe(true);
  expect(await page.locator("#clients-none").textContent()).toBe(WORDS.none[lang]);
  const name = `Reports ${lang}`;
  const { clientId, secret } = await addClient(f, page, base, lang, name);
  expect(await accessibilityFindings(page, `oauth clients (${lang})`)).toEqual([]);
  const renamed = `Reports ${lang} v2`;
  await renameClient(page, lang, name, renamed);
  await shotAndFit(f, page, `46e-clients-${lang}`);
  await page.getByRole("button", { name: WORDS.rotateNamed(renamed)[lang], exact: true }).click();
  await page.getByRole("button", { name: WORDS.yesRotate[lang], exact: true }).click();
  await say(page, lang, WORDS.rotated(renamed));
  const rotated = await takeSecret(f, page, lang, renamed, true);
  expect(rotated).not.toBe(secret);
  expect(await clientCredentials(base, clientId, secret)).toMatchObject({
    status: 401,
    error: "invalid_client",
  });
  expect((await clientCredentials(base, clientId, rotated)).status).toBe(200);
  await page.getByRole("button", { name: WORDS.deleteNamed(renamed)[lang], exact: true }).click();
  expect(await page.locator("#clients-delete-confirm-question").textContent()).toBe(
    WORDS.confirmDelete(renamed)[lang],
  );
  await page.getByRole("button", { name: WORDS.yesDelete[lang], exact: true }).click();
  await say(page, lang, WORDS.deleted(renamed));
  await expect.poll(() => visible(page, "#clients-none")).toBe(true);
  expect(await clientCredentials(base, clientId, rotated)).toMatchObject({
    status: 401,
    error: "invalid_client",
  });
}

/** Without OAUTH_PROVIDER (the suite's own app): no card in the back office, no client request, the page says so. */
async function providerOff(f: BrowserFixture, page: Page, lang: Lang) {
  const email = `back-office-${lang}@example.test`;
  if (!(await f.example.stores.users.findByEmail(email)))
    await f.example.auth.host.createUser({}, { email, password: PASSWORD, emailVerified: true });
  const asked: string[] = [];
  page.on("request", (r) => r.url().includes("/oauth2/") && asked.push(r.url()));
  await f.signInAndWait(page, email);
  await page.click("#nav-admin");
  await expect.poll(() => visible(page, "#admin-step-up #step-up")).toBe(true);
  await confirmPassword(page);
  await expect.poll(() => visible(page, "#admin-tools")).toBe(true);
  expect(await visible(page, "#admin-clients-card")).toBe(false);
  await page.goto(`${f.base}/admin/oauth/clients`);
  await expect.poll(() => page.locator("#clients-notice").textContent()).toBe(WORDS.off[lang]);
  expect(await visible(page, "#clients-tools")).toBe(false);
  expect(asked).toEqual([]);
}

/** The browser tests of this area, by name. */
export const oauthClientsTests: BrowserTests = {
  "oauth clients (46e) - the back office's OAuth clients: an admin adds a confidential client (a missing redirect URI refused in the page), sees its secret once (it works at the token endpoint; Done forgets it), finds it listed, changes its name, gives it a new secret (asked first; the old one refused), deletes it (asked first); without OAUTH_PROVIDER no card and no request, in English and German at 375 and 1280 px":
    withTimeout(150_000, async (f) => {
      await withAdminProvider(f, async (base) => {
        for (const [locale, lang] of LOCALES)
          await f.inNewPage({ locale }, (page) => clientLife(f, page, base, lang))();
      });
      for (const [locale, lang] of LOCALES)
        await f.inNewPage({ locale }, (page) => providerOff(f, page, lang))();
    }),
};
