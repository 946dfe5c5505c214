import { startTestSamlIdp, type TestSamlIdp } from "@portcullis/testing";
import type { Page } from "playwright-core";
import { expect } from "vitest";
import {
  accessibilityFindings,
  type BrowserFixture,
  type BrowserTests,
  confirmPassword,
  createActiveOrganization,
  expectHuman,
  expectSaid,
  type Lang,
  LOCALES,
  PASSWORD,
  SHARED_WORDS,
  shotAndFit,
  signedInAs,
  status,
  visible,
  withTimeout,
} from "./fixture.js";

// ---- Issue 48: an organization's enterprise sign-in (SAML), with a real identity provider -------
/** The page's words the tests look for, in both languages (besides fixture.ts's `SHARED_WORDS`). */
const WORDS = {
  title: (name: string) => ({ en: `Single sign-on of ${name}`, de: `Single Sign-on von ${name}` }),
  claimed: (domain: string) => ({
    en: `${domain} is claimed. Add its TXT record, then verify it.`,
    de: `${domain} ist beansprucht. Lege ihren TXT-Eintrag an und bestätige sie dann.`,
  }),
  verifyFor: (domain: string) => ({ en: `Verify ${domain}`, de: `${domain} bestätigen` }),
  // The server's words for SSO_DOMAIN_CHECK_FAILED (core's i18n), in the page's language.
  notPublished: {
    en: "The DNS record was not found yet. Add it and try again in a few minutes.",
    de: "Der DNS-Eintrag wurde noch nicht gefunden. Lege ihn an und versuche es in ein paar Minuten erneut.",
  },
  verified: (domain: string) => ({
    en: `${domain} is verified: its addresses sign in through the organization's connections.`,
    de: `${domain} ist bestätigt: Ihre Adressen melden sich über die Verbindungen der Organisation an.`,
  }),
  created: {
    en: "Connection added. Copy its SCIM token now: it is shown only this once.",
    de: "Verbindung hinzugefügt. Kopiere jetzt ihr SCIM-Token: Es wird nur dieses eine Mal gezeigt.",
  },
  going: { en: "On to your organization's sign-in …", de: "Weiter zur Anmeldung deiner Organisation …" },
  notVerified: {
    en: "Your address's domain is not verified for this organization's single sign-on. Ask the organization's administrator.",
    de: "Die Domain deiner Adresse ist für das Single Sign-on dieser Organisation nicht bestätigt. Wende dich an die Administration der Organisation.",
  },
  notFound: {
    en: "No single sign-on is set up for this address or organization.",
    de: "Für diese Adresse oder Organisation ist kein Single Sign-on eingerichtet.",
  },
  confirmWithSso: { en: "Confirm with single sign-on", de: "Mit Single Sign-on bestätigen" },
  // ssoError.IDENTITY_PROVIDER_MISMATCH of the page's words.
  someoneElse: {
    en: "Someone else logged in at the identity provider, so nothing was confirmed. Log in there as yourself.",
    de: "Beim Identitätsanbieter hat sich jemand anderes angemeldet, daher wurde nichts bestätigt. Melde dich dort mit deinem eigenen Konto an.",
  },
  stepUpDone: {
    en: "Confirmed: you can change security settings for a few minutes.",
    de: "Bestätigt: du kannst die Sicherheitseinstellungen einige Minuten lang ändern.",
  },
  keyCreated: (name: string) => ({
    en: `Key “${name}” created. Copy it now: it is shown only this once.`,
    de: `Schlüssel „${name}“ erstellt. Kopiere ihn jetzt: Er wird nur dieses eine Mal gezeigt.`,
  }),
  memberLine: (name: string, slug: string) => ({
    en: `${name} · ${slug} · your role: member`,
    de: `${name} · ${slug} · deine Rolle: Mitglied`,
  }),
};
const say = expectSaid;

/** The organization the owner makes: its name, short name and the domain its people sign in with. */
interface SsoOrganization {
  name: string;
  slug: string;
  domain: string;
}

/** Creates the organization with the page's form, makes it active and opens its single sign-on page from its card. */
async function openSsoOfNew(page: Page, lang: Lang, org: SsoOrganization) {
  await createActiveOrganization(page, lang, org.name, org.slug);
  await expect.poll(() => visible(page, "#org-sso-link")).toBe(true);
  await page.click("#org-sso-link");
  await expect.poll(() => new URL(page.url()).pathname).toBe("/organizations/sso");
  await expect.poll(() => page.locator("#org-sso-title").textContent()).toBe(WORDS.title(org.name)[lang]);
}

/**
 * Claims the domain, reads the TXT record the page shows, confirms the password, and verifies:
 * refused while the record is not published (in the server's words), verified once the test has
 * published exactly what the page showed (the fixture's DNS).
 */
async function claimAndVerify(f: BrowserFixture, page: Page, lang: Lang, domain: string) {
  await page.fill("#org-sso-claim [name=domain]", domain);
  await page.click("#org-sso-claim button[type=submit]");
  await say(page, lang, WORDS.claimed(domain));
  const item = page.locator(`#org-sso-domains li[data-domain="${domain}"]`);
  const name = (await item.locator("[data-field=recordName]").textContent()) ?? "";
  const value = (await item.locator("[data-field=recordValue]").textContent()) ?? "";
  expect(name).toBe(`_portcullis.${domain}`);
  expect(value).toMatch(/^portcullis-domain-verification=[\w-]{20,}$/);
  await confirmPassword(page, PASSWORD, "#org-sso-step-up ");
  await expect.poll(() => visible(page, "#org-sso-create")).toBe(true);
  const verify = page.getByRole("button", { name: WORDS.verifyFor(domain)[lang], exact: true });
  await verify.click();
  await say(page, lang, WORDS.notPublished);
  f.txtRecords.set(name, [[value]]);
  await verify.click();
  await say(page, lang, WORDS.verified(domain));
  expect(await item.locator(".sso-state.on").count()).toBe(1);
}

/**
 * The add form's OpenID Connect fields: an issuer on http (SSO_ALLOW_PRIVATE is off) is refused
 * under its field, in words, and nothing is added; then back to SAML.
 */
async function oidcIssuerRefused(page: Page) {
  const form = "#org-sso-create";
  await page.check(`${form} [name=type][value=oidc]`);
  await expect.poll(() => visible(page, "#org-sso-oidc")).toBe(true);
  expect(await visible(page, "#org-sso-saml")).toBe(false);
  await page.fill(`${form} [name=issuer]`, "http://127.0.0.1:9/issuer");
  await page.fill(`${form} [name=clientId]`, "portcullis-app");
  await page.fill(`${form} [name=clientSecret]`, "not-a-real-secret");
  await page.click(`${form} button[type=submit]`);
  const error = page.locator(`${form} label:has([name=issuer]) .field-error`);
  await expect.poll(() => error.count()).toBe(1);
  expectHuman(await error.textContent());
  expect(await page.locator(`${form} [name=issuer]`).getAttribute("aria-invalid")).toBe("true");
  expect(await page.locator("#org-sso-list li").count()).toBe(0);
  await page.check(`${form} [name=type][value=saml]`);
  await expect.poll(() => visible(page, "#org-sso-saml")).toBe(true);
}

/**
 * Adds a SAML connection for the domain by pasting the identity provider's metadata, sees its SCIM
 * token once, and registers the service provider the page shows (entity ID, ACS URL) at the
 * identity provider, as its administrator would.
 */
async function addConnection(page: Page, lang: Lang, idp: TestSamlIdp, domain: string) {
  const metadata = await (await fetch(idp.metadataUrl)).text();
  await page.fill("#org-sso-create [name=metadataXml]", metadata);
  await page.fill("#org-sso-create [name=domains]", domain);
  await page.click("#org-sso-create button[type=submit]");
  await say(page, lang, WORDS.created);
  expect(await page.locator("#org-sso-token-value").inputValue()).toMatch(/^scim_[\w-]{40,}$/);
  await page.getByRole("button", { name: SHARED_WORDS.done[lang], exact: true }).click();
  await expect.poll(() => visible(page, "#org-sso-token")).toBe(false);
  const item = page.locator("#org-sso-list li");
  await expect.poll(() => item.count()).toBe(1);
  expect(await item.locator(".sso-idp").textContent()).toBe(idp.entityId);
  expect(await item.locator("[data-field=domains]").textContent()).toBe(domain);
  const entityId = (await item.locator("[data-field=entityId]").textContent()) ?? "";
  const acsUrl = (await item.locator("[data-field=acsUrl]").textContent()) ?? "";
  expect(acsUrl).toMatch(/\/api\/auth\/sso\/saml\/[\w-]+\/acs$/);
  await idp.register({ entityId, acsUrl });
}

/** "Sign in with SSO" on the sign-in page with `who` (an address or a short name). */
async function startSso(page: Page, who: string) {
  await page.fill("#sso-sign-in [name=who]", who);
  await page.click("#sso-sign-in button[type=submit]");
}

/**
 * A new browser signs in with SSO: by the organization's short name with an address of another
 * domain (the identity provider vouches for it, the app refuses it, and the sign-in page says why),
 * an address no connection signs in (said at once), then a work address of the verified domain:
 * signed in, a member of the organization.
 */
async function signInWithSso(
  f: BrowserFixture,
  page: Page,
  lang: Lang,
  idp: TestSamlIdp,
  org: SsoOrganization,
) {
  await page.goto(`${f.base}/login`);
  await expect.poll(() => visible(page, "#sso-sign-in")).toBe(true);
  await idp.setUser(`eve-${lang}@elsewhere.test`);
  await startSso(page, org.slug);
  await expect.poll(() => status(page).textContent(), { timeout: 10_000 }).toBe(WORDS.notVerified[lang]);
  expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe("/login");
  await shotAndFit(f, page, `48-refused-${lang}`);
  await startSso(page, `nobody@unknown-${lang}.example.test`);
  await say(page, lang, WORDS.notFound);

  const email = `ada-${lang}@${org.domain}`;
  await idp.setUser(email);
  await startSso(page, email.toUpperCase());
  await signedInAs(page, email);
  await page.click('nav a[href="/organizations"]');
  await expect
    .poll(() => page.locator("#org-list li").first().textContent())
    .toContain(WORDS.memberLine(org.name, org.slug)[lang]);
}

/**
 * The member SSO made (no password) creates an API key: the step-up box offers single sign-on and
 * no password form. A colleague logs in at the identity provider: the browser comes back to the
 * API keys page, still signed in and not confirmed, and the page says why. Then the member logs
 * in there again (asked for a fresh login) and comes back confirmed, where the form now creates
 * the key.
 */
async function createKeyAfterSsoStepUp(page: Page, lang: Lang, idp: TestSamlIdp, email: string) {
  await page.click('nav a[href="/api-keys"]');
  const confirm = page.getByRole("button", { name: WORDS.confirmWithSso[lang], exact: true });
  await expect.poll(() => confirm.isVisible()).toBe(true);
  expect(await visible(page, "#keys-step-up #step-up")).toBe(false);
  expect(await visible(page, "#keys-create")).toBe(false);
  await idp.setUser(`eve-${email}`);
  await confirm.click();
  await say(page, lang, WORDS.someoneElse);
  expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe("/api-keys");
  expect(await visible(page, "#keys-create")).toBe(false);
  await idp.setUser(email);
  await confirm.click();
  await say(page, lang, WORDS.stepUpDone);
  expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe("/api-keys");
  await expect.poll(() => visible(page, "#keys-create")).toBe(true);
  const name = `SSO ${lang}`;
  await page.fill("#keys-create [name=name]", name);
  await page.click("#keys-create button[type=submit]");
  await say(page, lang, WORDS.keyCreated(name));
  expect(await page.locator("#keys-new-value").inputValue()).toMatch(/^pc_[0-9A-Za-z]{49}$/);
}

/** The browser tests of this area, by name. */
export const ssoTests: BrowserTests = {
  "ui (48) - single sign-on: an owner claims and verifies a domain (its TXT record published), is refused an OpenID Connect issuer on http under its field, adds a SAML connection from the identity provider's metadata and registers the page's ACS URL there; a new browser signs in with SSO through the identity provider and is a member, a foreign address is refused in words, and confirms creating an API key with single sign-on (the identity provider again; a colleague's login there is refused in words, still signed in), in English and German at 375 and 1280 px":
    withTimeout(90_000, async (f) => {
      const idp = await startTestSamlIdp({
        entityId: "urn:placeholder",
        acsUrl: "http://127.0.0.1/placeholder",
      });
      try {
        for (const [locale, lang] of LOCALES) {
          const owner = await f.createAccount(`sso-owner-${lang}`);
          const org = {
            name: `Enterprise ${lang} ${f.accounts}`,
            slug: `enterprise-${lang}-${f.accounts}`,
            domain: `corp-${lang}-${f.accounts}.example.test`,
          };
          await f.inNewPage({ locale }, async (page) => {
            await f.signInAndWait(page, owner);
            await openSsoOfNew(page, lang, org);
            await claimAndVerify(f, page, lang, org.domain);
            await oidcIssuerRefused(page);
            await addConnection(page, lang, idp, org.domain);
            await shotAndFit(f, page, `48-connection-${lang}`);
            expect(await accessibilityFindings(page, `single sign-on (${lang})`)).toEqual([]);
          })();
          await f.inNewPage({ locale }, async (page) => {
            await signInWithSso(f, page, lang, idp, org);
            await createKeyAfterSsoStepUp(page, lang, idp, `ada-${lang}@${org.domain}`);
          })();
        }
      } finally {
        await idp.close();
      }
    }),
};
