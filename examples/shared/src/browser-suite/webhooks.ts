import { startWebhookReceiver, type WebhookReceiver } from "@portcullis/testing";
import type { BrowserContext, Page } from "playwright-core";
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
  status,
  switchOrganization,
  visible,
  withTimeout,
} from "./fixture.js";

// ---- Issue 47: an organization's webhook endpoints, with a real receiver --------------------------
/** The page's words the tests look for, in both languages (besides fixture.ts's `SHARED_WORDS`). */
const WORDS = {
  title: (name: string) => ({ en: `Webhooks of ${name}`, de: `Webhooks von ${name}` }),
  created: (url: string) => ({
    en: `Endpoint ${url} added. Copy its secret now: it is shown only this once.`,
    de: `Endpunkt ${url} hinzugefügt. Kopiere jetzt sein Geheimnis: Es wird nur dieses eine Mal gezeigt.`,
  }),
  copy: { en: "Copy the secret", de: "Geheimnis kopieren" },
  copied: { en: "The secret is on the clipboard.", de: "Das Geheimnis ist in der Zwischenablage." },
  deliveriesFor: (url: string) => ({ en: `Deliveries to ${url}`, de: `Zustellungen an ${url}` }),
  memberInvited: { en: "Member invited", de: "Mitglied eingeladen" },
  delivered: { en: "Delivered", de: "Zugestellt" },
  retrying: { en: "Failed, will be retried", de: "Gescheitert, wird wiederholt" },
  redeliverFor: { en: "Send again: Member invited", de: "Erneut senden: Mitglied eingeladen" },
  redelivered: {
    en: "The message is sent again: its line is at the top of the deliveries.",
    de: "Die Nachricht wird erneut gesendet: Ihre Zeile steht oben in den Zustellungen.",
  },
  redelivery: { en: "sent again on request", de: "auf Wunsch erneut gesendet" },
  invalidUrl: {
    en: "Enter the receiver's whole URL, starting with https://, e.g. https://example.com/hooks.",
    de: "Gib die vollständige URL des Empfängers ein, beginnend mit https://, z. B. https://example.com/hooks.",
  },
  pickEvent: {
    en: "Pick at least one event, or all events.",
    de: "Wähle mindestens ein Ereignis oder alle Ereignisse.",
  },
  disableFor: (url: string) => ({ en: `Turn off ${url}`, de: `${url} abschalten` }),
  enableFor: (url: string) => ({ en: `Turn on ${url}`, de: `${url} einschalten` }),
  disabled: (url: string) => ({
    en: `The endpoint ${url} is turned off: it receives nothing until you turn it on.`,
    de: `Der Endpunkt ${url} ist abgeschaltet: Er erhält nichts, bis du ihn einschaltest.`,
  }),
  enabled: (url: string) => ({
    en: `The endpoint ${url} is turned on: it receives what it missed, in order.`,
    de: `Der Endpunkt ${url} ist eingeschaltet: Er erhält, was er verpasst hat, in der richtigen Reihenfolge.`,
  }),
  offByHand: { en: "Off: turned off by hand", de: "Aus: von Hand abgeschaltet" },
  on: { en: "On", de: "An" },
  rotateFor: (url: string) => ({ en: `New secret for ${url}`, de: `Neues Geheimnis für ${url}` }),
  rotated: (url: string) => ({
    en: `New secret for ${url}. Copy it now: it is shown only this once.`,
    de: `Neues Geheimnis für ${url}. Kopiere es jetzt: Es wird nur dieses eine Mal gezeigt.`,
  }),
  deleteFor: (url: string) => ({ en: `Delete ${url}`, de: `${url} löschen` }),
  deleted: (url: string) => ({ en: `Endpoint ${url} deleted.`, de: `Endpunkt ${url} gelöscht.` }),
  off: {
    en: "Webhooks are not turned on in this app.",
    de: "Webhooks sind in dieser App nicht eingeschaltet.",
  },
  denied: {
    en: "Your role in this organization may not manage its webhooks. An owner or an admin of the organization can.",
    de: "Deine Rolle in dieser Organisation darf ihre Webhooks nicht verwalten. Ein Eigentümer oder Administrator der Organisation kann das.",
  },
};
const say = expectSaid;
const rows = (page: Page) => page.locator("#org-webhooks-rows tr");

/** What the clipboard holds (the context was granted clipboard access). */
const clipboard = (page: Page) =>
  page.evaluate(() =>
    (
      globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }
    ).navigator.clipboard.readText(),
  );

/** Creates an organization with the page's form, makes it active and opens its webhooks page from its card. */
async function openWebhooksOfNew(page: Page, lang: Lang, name: string) {
  await createActiveOrganization(page, lang, name);
  await expect.poll(() => visible(page, "#org-webhooks-link")).toBe(true);
  await page.click("#org-webhooks-link");
  await expect.poll(() => new URL(page.url()).pathname).toBe("/organizations/webhooks");
  await expect.poll(() => page.locator("#org-webhooks-title").textContent()).toBe(WORDS.title(name)[lang]);
  const me = (await page.evaluate(() => fetch("/api/auth/me").then((reply) => reply.json()))) as {
    activeOrganization: { id: string };
  };
  return me.activeOrganization.id;
}

/** Confirms the password in the page's step-up box (once): the form to add an endpoint shows. */
async function stepUp(page: Page) {
  if (await visible(page, "#org-webhooks-create")) return;
  await confirmPassword(page, PASSWORD, "#org-webhooks-step-up ");
  await expect.poll(() => visible(page, "#org-webhooks-create")).toBe(true);
}

/**
 * Adds an endpoint with the form (`events`: the values to check, "*" for all), sees its secret
 * once and copies it with the button: returns it as the clipboard holds it.
 */
async function addEndpoint(
  f: BrowserFixture,
  page: Page,
  context: BrowserContext,
  lang: Lang,
  url: string,
  events: string[],
) {
  await stepUp(page);
  await page.fill("#org-webhooks-create [name=url]", url);
  for (const event of events) await page.check(`#org-webhooks-events input[value="${event}"]`);
  await page.click("#org-webhooks-create button[type=submit]");
  await say(page, lang, WORDS.created(url));
  const secret = await page.locator("#org-webhooks-secret-value").inputValue();
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]{20,}$/);
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: f.base });
  await page.getByRole("button", { name: WORDS.copy[lang], exact: true }).click();
  await say(page, lang, WORDS.copied);
  expect(await clipboard(page)).toBe(secret);
  return secret;
}

/**
 * Invites `email` with the organization page's form (a `member.invited` event), runs `there` on
 * that page, and comes back to the webhooks page by its card.
 */
async function inviteInPage(page: Page, lang: Lang, email: string, there = async () => {}) {
  await page.click('nav a[href="/organizations"]');
  await page.fill("#org-invite [name=email]", email);
  await page.click("#org-invite button[type=submit]");
  await say(page, lang, SHARED_WORDS.invited(email));
  await there();
  await page.click("#org-webhooks-link");
  await expect.poll(() => visible(page, "#org-webhooks-tools")).toBe(true);
  await expect.poll(() => visible(page, "#org-webhooks-loading")).toBe(false);
}

/** Opens the endpoint's deliveries, then asks again (Refresh) until the newest is `expected`. */
async function newestDelivery(page: Page, lang: Lang, url: string, expected: string) {
  if (!(await visible(page, "#org-webhooks-deliveries")))
    await page.getByRole("button", { name: WORDS.deliveriesFor(url)[lang], exact: true }).click();
  await expect
    .poll(
      async () => {
        const answered = page.waitForResponse((r) => r.url().includes("/deliveries?"));
        await page.click("#org-webhooks-refresh");
        await answered;
        return rows(page).first().getAttribute("data-status");
      },
      { timeout: 10_000 },
    )
    .toBe(expected);
  return rows(page).first().locator("td > div").allTextContents();
}

/** A receiver for the test, stopped after it. */
async function withReceiver(body: (receiver: WebhookReceiver) => Promise<void>) {
  const receiver = await startWebhookReceiver();
  try {
    await body(receiver);
  } finally {
    await receiver.stop();
  }
}

/**
 * The add form refuses, each under its field: a URL that is not http(s) and no event (nothing is
 * sent), then a URL the server refuses (a user name and password in it), in the server's words.
 */
async function refusedUnderFields(f: BrowserFixture, page: Page, lang: Lang) {
  const form = "#org-webhooks-create";
  const urlError = page.locator(`${form} label:has([name=url]) .field-error`);
  const posts: string[] = [];
  page.on("request", (r) => r.method() === "POST" && r.url().endsWith("/webhooks") && posts.push(r.url()));
  await page.fill(`${form} [name=url]`, "ftp://x");
  await page.click(`${form} button[type=submit]`);
  await expect.poll(() => urlError.textContent()).toBe(WORDS.invalidUrl[lang]);
  expect(await page.locator("#org-webhooks-events .field-error").textContent()).toBe(WORDS.pickEvent[lang]);
  expect(posts).toEqual([]);
  await page.check(`#org-webhooks-events input[value="member.joined"]`);
  await page.fill(`${form} [name=url]`, "https://user:secret@example.com/hook");
  await page.click(`${form} button[type=submit]`);
  await expect.poll(() => posts.length).toBe(1);
  await expect.poll(() => urlError.textContent()).not.toBe(WORDS.invalidUrl[lang]);
  expectHuman(await urlError.textContent());
  expect(await urlError.count()).toBe(1);
  expect(await page.locator(`${form} [name=url]`).getAttribute("aria-invalid")).toBe("true");
  expectHuman(await status(page).textContent());
  expect(await visible(page, "#org-webhooks-secret")).toBe(false);
  await shotAndFit(f, page, `47h-refused-${lang}`);
}

/**
 * An endpoint for all events (the single ones cannot be picked beside it), its secret gone once
 * done; turned off and on; a new secret shown once; deleted after the question.
 */
async function manageEndpoint(
  f: BrowserFixture,
  page: Page,
  context: BrowserContext,
  lang: Lang,
  url: string,
) {
  await page.check(`#org-webhooks-events input[value="*"]`);
  expect(await page.locator(`#org-webhooks-events input[value="member.joined"]`).isDisabled()).toBe(true);
  const first = await addEndpoint(f, page, context, lang, url, []);
  await page.getByRole("button", { name: SHARED_WORDS.done[lang], exact: true }).click();
  await expect.poll(() => visible(page, "#org-webhooks-secret")).toBe(false);
  expect(await page.content()).not.toContain(first);
  const item = page.locator("#org-webhooks-list li");
  expect(await item.locator(".tag").allTextContents()).toEqual([
    lang === "en" ? "All events" : "Alle Ereignisse",
  ]);

  await page.getByRole("button", { name: WORDS.disableFor(url)[lang], exact: true }).click();
  await say(page, lang, WORDS.disabled(url));
  expect(await item.locator(".webhook-state").textContent()).toBe(WORDS.offByHand[lang]);
  await page.getByRole("button", { name: WORDS.enableFor(url)[lang], exact: true }).click();
  await say(page, lang, WORDS.enabled(url));
  expect(await item.locator(".webhook-state").textContent()).toBe(WORDS.on[lang]);

  await page.getByRole("button", { name: WORDS.rotateFor(url)[lang], exact: true }).click();
  await say(page, lang, WORDS.rotated(url));
  const second = await page.locator("#org-webhooks-secret-value").inputValue();
  expect(second).toMatch(/^whsec_/);
  expect(second).not.toBe(first);

  await page.getByRole("button", { name: WORDS.deleteFor(url)[lang], exact: true }).click();
  await expect.poll(() => visible(page, "#webhooks-confirm")).toBe(true);
  await shotAndFit(f, page, `47h-delete-${lang}`);
  await page.click("#webhooks-confirm button.danger");
  await say(page, lang, WORDS.deleted(url));
  await expect.poll(() => visible(page, "#org-webhooks-none")).toBe(true);
}

/** Through the API: `owner` makes the organization `name` and invites `member`, who accepts by the emailed token. */
async function organizationWithMember(f: BrowserFixture, owner: string, member: string, name: string) {
  const api = await f.signedInElsewhere(owner);
  const { organization } = (await f.call(api, "POST", "/organizations", { name })) as unknown as {
    organization: { id: string };
  };
  await f.call(api, "POST", `/organizations/${organization.id}/invitations`, {
    email: member,
    role: "member",
  });
  await api.dispose();
  const mail = await f.newestEmail("organization-invitation", member);
  const token = /invitations\/accept\?token=([\w-]+)/.exec(mail.text)?.[1];
  const joining = await f.signedInElsewhere(member);
  await f.call(joining, "POST", "/invitations/accept", { token });
  await joining.dispose();
}

/** The browser tests of this area, by name. */
export const webhooksTests: BrowserTests = {
  "ui (47f) - webhooks: an endpoint added on the organization's page, its secret copied into a real receiver; a member invited in the page arrives signed (Standard Webhooks) and the page lists it as delivered, in English and German at 375 and 1280 px":
    withTimeout(60_000, (f) =>
      withReceiver(async (receiver) => {
        for (const [locale, lang] of LOCALES) {
          const owner = await f.createAccount(`hooks-${lang}`);
          await f.inNewPage({ locale }, async (page, context) => {
            await f.signInAndWait(page, owner);
            const organizationId = await openWebhooksOfNew(page, lang, `Hooks ${lang} ${f.accounts}`);
            receiver.secrets.push(
              await addEndpoint(f, page, context, lang, receiver.url, ["member.invited"]),
            );
            await shotAndFit(f, page, `47f-secret-${lang}`);

            const invited = `invited-${lang}-${f.accounts}@example.test`;
            await inviteInPage(page, lang, invited, async () => {
              // The organization page's card counts the endpoints.
              const count = page.locator("#org-webhooks-card-count");
              await expect
                .poll(() => count.textContent())
                .toBe(lang === "en" ? "1 endpoint." : "1 Endpunkt.");
              await f.shot(page, `47f-card-${lang}`);
            });
            const arrived = () =>
              receiver.received.find((message) => message.payload.data.organizationId === organizationId);
            await expect.poll(arrived).toBeDefined();
            const message = arrived();
            expect(message).toMatchObject({ type: "member.invited", verified: true });
            expect(message?.payload.data).toMatchObject({ actorType: "user", organizationId });
            const [event, state, attempts, , answer] = await newestDelivery(
              page,
              lang,
              receiver.url,
              "succeeded",
            );
            expect([event, state, attempts, answer]).toEqual([
              `${WORDS.memberInvited[lang]}member.invited`,
              WORDS.delivered[lang],
              "1",
              "HTTP 200",
            ]);
            await shotAndFit(f, page, `47f-delivered-${lang}`);
            expect(await accessibilityFindings(page, `webhooks (${lang})`)).toEqual([]);
          })();
        }
      }),
    ),

  "ui (47g) - webhooks: the receiver answers 500, the page shows the failed attempt and its answer; back up, the message is sent again from the page and arrives, in English and German at 375 and 1280 px":
    withTimeout(60_000, (f) =>
      withReceiver(async (receiver) => {
        for (const [locale, lang] of LOCALES) {
          const owner = await f.createAccount(`hooks-failing-${lang}`);
          await f.inNewPage({ locale }, async (page, context) => {
            await f.signInAndWait(page, owner);
            const organizationId = await openWebhooksOfNew(page, lang, `Failing ${lang} ${f.accounts}`);
            receiver.secrets.push(
              await addEndpoint(f, page, context, lang, receiver.url, ["member.invited"]),
            );
            receiver.status = 500;
            const earlier = receiver.attempts.length;
            await inviteInPage(page, lang, `down-${lang}-${f.accounts}@example.test`);
            const [, state, , , answer] = await newestDelivery(page, lang, receiver.url, "pending");
            expect([state, answer]).toEqual([WORDS.retrying[lang], "HTTP 500"]);
            const failed = receiver.attempts.slice(earlier).find((attempt) => attempt.status === 500);
            expect(failed).toBeDefined();
            await shotAndFit(f, page, `47g-failed-${lang}`);

            // The receiver is back: the message is sent again from its row, with the same webhook-id.
            receiver.status = 200;
            const ofId = () => receiver.received.filter((message) => message.id === failed?.id);
            const before = ofId().length;
            await page.getByRole("button", { name: WORDS.redeliverFor[lang], exact: true }).first().click();
            await say(page, lang, WORDS.redelivered);
            await expect.poll(() => ofId().length).toBeGreaterThan(before);
            expect(
              ofId().every(
                (message) => message.verified && message.payload.data.organizationId === organizationId,
              ),
            ).toBe(true);
            await expect
              .poll(async () => {
                const answered = page.waitForResponse((r) => r.url().includes("/deliveries?"));
                await page.click("#org-webhooks-refresh");
                await answered;
                return page
                  .locator('#org-webhooks-rows tr[data-status="succeeded"]', {
                    hasText: WORDS.redelivery[lang],
                  })
                  .count();
              })
              .toBe(1);
            await shotAndFit(f, page, `47g-redelivered-${lang}`);
          })();
        }
      }),
    ),

  "ui (47h) - webhooks: an invalid URL and no events are refused under their fields; all events; turn off and on, a new secret shown once, delete after a question, in English and German at 375 and 1280 px":
    withTimeout(60_000, (f) =>
      withReceiver(async (receiver) => {
        for (const [locale, lang] of LOCALES) {
          const owner = await f.createAccount(`hooks-manage-${lang}`);
          await f.inNewPage({ locale }, async (page, context) => {
            await f.signInAndWait(page, owner);
            await openWebhooksOfNew(page, lang, `Manage ${lang} ${f.accounts}`);
            await stepUp(page);
            await refusedUnderFields(f, page, lang);
            await manageEndpoint(f, page, context, lang, receiver.url);
          })();
        }
      }),
    ),

  "ui (47i) - webhooks: a plain member sees no webhooks card, and the page says politely that the role may not manage them, in English and German at 375 and 1280 px":
    withTimeout(60_000, async (f) => {
      for (const [locale, lang] of LOCALES) {
        const owner = await f.createAccount(`hooks-owner-${lang}`);
        const member = await f.createAccount(`hooks-member-${lang}`);
        const name = `Members ${lang} ${f.accounts}`;
        await organizationWithMember(f, owner, member, name);
        await f.inNewPage({ locale }, async (page) => {
          await f.signInAndWait(page, member);
          await page.click('nav a[href="/organizations"]');
          await switchOrganization(page, lang, name);
          expect(await visible(page, "#org-webhooks-card")).toBe(false);
          await page.goto(`${f.base}/organizations/webhooks`);
          await expect
            .poll(() => page.locator("#org-webhooks-notice").textContent())
            .toBe(WORDS.denied[lang]);
          expect(await visible(page, "#org-webhooks-tools")).toBe(false);
          await shotAndFit(f, page, `47i-denied-${lang}`);
        })();
      }
    }),

  "ui (47j) - webhooks: with WEBHOOKS=false the organization page has no webhooks card and the page says webhooks are off, in English and German":
    withTimeout(60_000, async (f) => {
      const other = await f.openOther({ WEBHOOKS: "false" });
      try {
        for (const [locale, lang] of LOCALES) {
          const owner = await f.createAccount(`hooks-off-${lang}`, {}, other.example);
          await f.inNewPage({ locale }, async (page) => {
            await page.goto(`${other.base}/login`);
            await page.fill("#login [name=email]", owner);
            await page.fill("#login [name=password]", PASSWORD);
            await page.click("#login button[type=submit]");
            await expect.poll(() => page.locator("#me-email").textContent()).toBe(owner);
            const name = `Off ${lang} ${f.accounts}`;
            await createActiveOrganization(page, lang, name);
            // The owner holds webhook:manage, but the routes answer 404: no card.
            await expect.poll(() => visible(page, "#org-audit-card")).toBe(true);
            expect(await visible(page, "#org-webhooks-card")).toBe(false);
            await page.goto(`${other.base}/organizations/webhooks`);
            await expect.poll(() => page.locator("#org-webhooks-notice").textContent()).toBe(WORDS.off[lang]);
            expect(await visible(page, "#org-webhooks-tools")).toBe(false);
          })();
        }
      } finally {
        await other.close();
      }
    }),
};
