import type { Page } from "playwright-core";
import { expect } from "vitest";
import {
  accessibilityFindings,
  type BrowserFixture,
  type BrowserTests,
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

// ---- Issue 44: organizations, invitations, roles and the app's demo route ------------------------
/** The page's words the tests look for, in both languages (besides fixture.ts's `SHARED_WORDS`). */
const WORDS = {
  joined: (name: string) => ({
    en: `You joined ${name} as member.`,
    de: `Du bist ${name} als Mitglied beigetreten.`,
  }),
  roleOf: (email: string) => ({ en: `Role of ${email}`, de: `Rolle von ${email}` }),
  saveRoleOf: (email: string) => ({ en: `Save the role of ${email}`, de: `Rolle von ${email} speichern` }),
  roleChanged: (email: string) => ({
    en: `The role of ${email} is now admin.`,
    de: `Die Rolle von ${email} ist jetzt Administrator.`,
  }),
  roleCreated: { en: "Role “editor” created.", de: "Rolle „editor“ erstellt." },
  roleDeleted: { en: "Role “editor” deleted.", de: "Rolle „editor“ gelöscht." },
  deleteRole: { en: "Delete the role editor", de: "Rolle editor löschen" },
  revoked: { en: "Invitation revoked.", de: "Einladung zurückgezogen." },
  removed: (email: string) => ({ en: `${email} was removed.`, de: `${email} wurde entfernt.` }),
  revokeFor: (email: string) => ({
    en: `Revoke the invitation to ${email}`,
    de: `Einladung an ${email} zurückziehen`,
  }),
  removeNamed: (email: string) => ({ en: `Remove ${email}`, de: `${email} entfernen` }),
  lastOwner: {
    en: "An organization keeps at least one owner: make someone else owner first.",
    de: "Eine Organisation behält mindestens einen Eigentümer: mache zuerst jemand anderen zum Eigentümer.",
  },
  declined: { en: "You declined the invitation.", de: "Du hast die Einladung abgelehnt." },
  signInFirst: {
    en: "Sign in with the address the invitation was sent to (or create an account with it), and this page opens again.",
    de: "Melde dich mit der Adresse an, an die die Einladung ging (oder erstelle damit ein Konto); danach öffnet sich diese Seite wieder.",
  },
};
const say = expectSaid;

/** On /organizations: creates an organization with the form and makes it the active one with its switch. */
async function createAndSwitch(page: Page, lang: Lang, name: string) {
  await createActiveOrganization(page, lang, name);
  await expect.poll(() => page.locator("#org-active-title").textContent()).toContain(name);
}

/** The invitation's link, read from the dev outbox's JSON list (`GET /dev/outbox`). */
async function invitationLink(f: BrowserFixture, page: Page, to: string): Promise<string> {
  let link = "";
  await expect
    .poll(async () => {
      const reply = await page.request.get(`${f.base}/dev/outbox`, {
        headers: { accept: "application/json" },
      });
      const { emails } = (await reply.json()) as { emails: { kind: string; to: string; text: string }[] };
      const mail = emails.find((email) => email.kind === "organization-invitation" && email.to === to);
      link = /https?:\/\/\S+?\/invitations\/accept\?token=[\w-]+/.exec(mail?.text ?? "")?.[0] ?? "";
      return link;
    })
    .not.toBe("");
  expect(new URL(link).origin).toBe(f.base);
  return link;
}

/**
 * Through the API (its own cookie jar): `owner` creates an organization, `member` joins it by an
 * invitation's emailed token, and `pending` gets an invitation left open. Returns its name.
 */
async function organizationWithMember(
  f: BrowserFixture,
  page: Page,
  owner: string,
  member: string,
  pending: string,
) {
  const name = `Team ${f.accounts}`;
  const api = await f.signedInElsewhere(owner);
  const { organization } = (await f.call(api, "POST", "/organizations", { name })) as unknown as {
    organization: { id: string };
  };
  for (const email of [member, pending])
    await f.call(api, "POST", `/organizations/${organization.id}/invitations`, { email, role: "member" });
  await api.dispose();
  const token = new URL(await invitationLink(f, page, member)).searchParams.get("token");
  const joining = await f.signedInElsewhere(member);
  await f.call(joining, "POST", "/invitations/accept", { token });
  await joining.dispose();
  return name;
}

/** Presses a button of the projects panel and waits for the demo route's answer it shows. */
async function projects(page: Page, which: "read" | "write", expected: "allowed" | "refused") {
  const answer = page.locator("#projects-answer");
  // Cleared first, so the answer waited for is this click's, not the one before.
  await answer.evaluate((node) => {
    (node as unknown as { className: string }).className = "";
  });
  await page.click(`#projects-${which}`);
  await expect.poll(() => answer.getAttribute("class")).toBe(`wrap ${expected}`);
  return (await answer.textContent()) ?? "";
}

/** The invited user: accepts from the link (opening it changed nothing), switches, tries the demo route. */
async function acceptAndTry(f: BrowserFixture, page: Page, lang: Lang, link: string, name: string) {
  await page.goto(link);
  await expect.poll(() => visible(page, "#invitation-accept")).toBe(true);
  const mine = () =>
    page.evaluate(() => fetch("/api/auth/organizations").then((reply) => reply.json())) as Promise<{
      items: unknown[];
    }>;
  expect((await mine()).items).toHaveLength(0);
  await shotAndFit(f, page, `44a-accept-${lang}`);
  expect(await accessibilityFindings(page, `invitation (${lang})`)).toEqual([]);
  await page.click("#invitation-accept");
  await say(page, lang, WORDS.joined(name));
  expect((await mine()).items).toHaveLength(1);
  await page.click("#invitation-next");
  await switchOrganization(page, lang, name);
  expect(await projects(page, "read", "allowed")).toContain("HTTP 200");
  expect(await projects(page, "write", "refused")).toContain("HTTP 403, PERMISSION_DENIED");
  expectHuman(await status(page).textContent());
  await shotAndFit(f, page, `44a-member-${lang}`);
}

/** The browser tests of this area, by name. */
export const organizationsTests: BrowserTests = {
  "organizations (44a) - create one, invite a second user, accept from the dev outbox, change the role: the app's route answers by role, in English and German at 375 and 1280 px":
    withTimeout(120_000, async (f) => {
      for (const [locale, lang] of LOCALES) {
        const owner = await f.createAccount(`org-owner-${lang}`);
        const invited = await f.createAccount(`org-invited-${lang}`);
        const name = `Acme ${lang} ${f.accounts}`;
        const [ownerContext, ownerPage] = await f.newPage({ locale });
        const [invitedContext, invitedPage] = await f.newPage({ locale });
        try {
          await f.signInAndWait(ownerPage, owner);
          await createAndSwitch(ownerPage, lang, name);
          await ownerPage.fill("#org-invite [name=email]", invited);
          await ownerPage.selectOption("#org-invite [name=role]", "member");
          await ownerPage.click("#org-invite button[type=submit]");
          await say(ownerPage, lang, SHARED_WORDS.invited(invited));
          await expect.poll(() => ownerPage.locator("#org-pending li").textContent()).toContain(invited);
          await shotAndFit(f, ownerPage, `44a-owner-${lang}`);
          await f.signInAndWait(invitedPage, invited);
          await acceptAndTry(f, invitedPage, lang, await invitationLink(f, invitedPage, invited), name);
          // The owner makes the member an admin: the member's next request may write, same token.
          await ownerPage.goto(`${f.base}/organizations`);
          await ownerPage.getByRole("combobox", { name: WORDS.roleOf(invited)[lang] }).selectOption("admin");
          await ownerPage.getByRole("button", { name: WORDS.saveRoleOf(invited)[lang] }).click();
          await say(ownerPage, lang, WORDS.roleChanged(invited));
          expect(await projects(invitedPage, "write", "allowed")).toContain("HTTP 200");
          await shotAndFit(f, invitedPage, `44a-admin-${lang}`);
        } finally {
          await ownerContext.close();
          await invitedContext.close();
        }
      }
    }),

  "organizations (44b) - the invitation page accepts nothing on opening: signed out it asks to sign in and comes back, declines with its button, a spent link says so, in English and German":
    withTimeout(90_000, async (f) => {
      for (const [locale, lang] of LOCALES) {
        const owner = await f.createAccount(`org-decline-owner-${lang}`);
        const invited = await f.createAccount(`org-decline-${lang}`);
        const api = await f.signedInElsewhere(owner);
        const { organization } = (await f.call(api, "POST", "/organizations", {
          name: `Decline ${lang} ${f.accounts}`,
        })) as unknown as { organization: { id: string } };
        await f.call(api, "POST", `/organizations/${organization.id}/invitations`, {
          email: invited,
          role: "member",
        });
        await api.dispose();
        await f.inNewPage({ locale }, async (page) => {
          const link = await invitationLink(f, page, invited);
          await page.goto(link);
          await expect
            .poll(() => page.locator("#invitation-text").textContent())
            .toBe(WORDS.signInFirst[lang]);
          expect(await visible(page, "#invitation-accept")).toBe(false);
          await shotAndFit(f, page, `44b-signed-out-${lang}`);
          await page.click('#invitation-sign-in a[href="/login"]');
          await page.fill("#login [name=email]", invited);
          await page.fill("#login [name=password]", PASSWORD);
          await page.click("#login button[type=submit]");
          await page.waitForURL(link);
          await page.click("#invitation-decline");
          await say(page, lang, WORDS.declined);
          await expect.poll(() => page.locator("#invitation-text").textContent()).toBe(WORDS.declined[lang]);
          // The same link again: its buttons answer that it is spent, in words.
          await page.goto(link);
          await page.click("#invitation-accept");
          await expect.poll(() => page.locator("#invitation-text").getAttribute("class")).toBe("error");
          expectHuman(await page.locator("#invitation-text").textContent());
          expect(await visible(page, "#invitation-accept")).toBe(false);
        })();
      }
    }),

  "organizations (44c) - a custom role made from the declared permissions is offered for invitations, and deleted after a confirmation, in English and German at 375 and 1280 px":
    withTimeout(60_000, async (f) => {
      for (const [locale, lang] of LOCALES) {
        const owner = await f.createAccount(`org-roles-${lang}`);
        await f.inNewPage({ locale }, async (page) => {
          await f.signInAndWait(page, owner);
          await createAndSwitch(page, lang, `Roles ${lang} ${f.accounts}`);
          const choices = page.locator("#org-role-permissions input[type=checkbox]");
          // Every declared permission of the app and the built-in ones, each a named checkbox.
          const offered = await choices.evaluateAll((nodes) =>
            nodes.map((node) => (node as unknown as { value: string }).value),
          );
          expect(offered).toEqual(
            expect.arrayContaining(["project:read", "project:write", "project:delete", "member:invite"]),
          );
          await page.fill("#org-role-create [name=name]", "editor");
          // The role form's own checkboxes (the API keys card has its own of the same names).
          const roleForm = page.locator("#org-role-permissions");
          await roleForm.getByLabel("project:read", { exact: true }).check();
          await roleForm.getByLabel("project:write", { exact: true }).check();
          await page.click("#org-role-create button[type=submit]");
          await say(page, lang, WORDS.roleCreated);
          await expect
            .poll(() => page.locator("#org-roles li").last().textContent())
            .toContain("project:write");
          expect(await page.locator("#org-invite [name=role] option[value=editor]").count()).toBe(1);
          await shotAndFit(f, page, `44c-roles-${lang}`);
          expect(await accessibilityFindings(page, `organizations (${lang})`)).toEqual([]);
          await page.getByRole("button", { name: WORDS.deleteRole[lang] }).click();
          await expect.poll(() => visible(page, "#org-confirm")).toBe(true);
          await page.click("#org-confirm button.danger");
          await say(page, lang, WORDS.roleDeleted);
          await expect
            .poll(() => page.locator("#org-invite [name=role] option[value=editor]").count())
            .toBe(0);
        })();
      }
    }),

  "organizations (44d) - revoke an invitation, remove a member, and the last owner cannot leave: each asked in the page first, in English and German":
    withTimeout(60_000, async (f) => {
      for (const [locale, lang] of LOCALES) {
        const owner = await f.createAccount(`org-manage-${lang}`);
        const member = await f.createAccount(`org-removed-${lang}`);
        const pending = `org-pending-${lang}-${f.accounts}@example.test`;
        await f.inNewPage({ locale }, async (page) => {
          const name = await organizationWithMember(f, page, owner, member, pending);
          await f.signInAndWait(page, owner);
          await page.click('nav a[href="/organizations"]');
          await switchOrganization(page, lang, name);
          await page.getByRole("button", { name: WORDS.revokeFor(pending)[lang] }).click();
          await expect.poll(() => visible(page, "#org-confirm")).toBe(true);
          await page.click("#org-confirm button.danger");
          await say(page, lang, WORDS.revoked);
          await expect.poll(() => visible(page, "#org-pending-none")).toBe(true);
          await page.getByRole("button", { name: WORDS.removeNamed(member)[lang] }).click();
          await page.click("#org-confirm button.danger");
          await say(page, lang, WORDS.removed(member));
          await expect.poll(() => page.locator("#org-members li").count()).toBe(1);
          // Alone, the owner cannot leave: the server's refusal in the page's words.
          await page.click("#org-members li button.danger");
          await page.click("#org-confirm button.danger");
          await say(page, lang, WORDS.lastOwner);
          await expect.poll(() => page.locator("#org-members li").count()).toBe(1);
        })();
      }
    }),
};
