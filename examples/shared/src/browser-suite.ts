import { existsSync } from "node:fs";
import { CHROMIUM_PATH } from "@portcullis/testing";
import { afterAll, beforeAll, describe, it } from "vitest";
import { accessibilityTests } from "./browser-suite/accessibility.js";
import { accountTests } from "./browser-suite/account.js";
import { apiKeysTests } from "./browser-suite/api-keys.js";
import { auditLogTests } from "./browser-suite/audit-log.js";
import { backOfficeTests } from "./browser-suite/back-office.js";
import { captchaTests } from "./browser-suite/captcha.js";
import { emailSignInTests } from "./browser-suite/email-sign-in.js";
import {
  BrowserFixture,
  type BrowserTestBody,
  type BrowserTests,
  type StartExample,
  screenshotDirectory,
} from "./browser-suite/fixture.js";
import { journeyTests } from "./browser-suite/journey.js";
import { oauthClientsTests } from "./browser-suite/oauth-clients.js";
import { oauthProviderTests } from "./browser-suite/oauth-provider.js";
import { organizationsTests } from "./browser-suite/organizations.js";
import { pagePolishTests } from "./browser-suite/page-polish.js";
import { pageStateTests } from "./browser-suite/page-state.js";
import { passkeysTests } from "./browser-suite/passkeys.js";
import { roughEdgesTests } from "./browser-suite/rough-edges.js";
import { sessionsTests } from "./browser-suite/sessions.js";
import { signedInTests } from "./browser-suite/signed-in.js";
import { ssoTests } from "./browser-suite/sso.js";
import { trustedBrowsersTests } from "./browser-suite/trusted-browsers.js";
import { twoFactorTests } from "./browser-suite/two-factor.js";
import { uiIssuesTests } from "./browser-suite/ui-issues.js";
import { webhooksTests } from "./browser-suite/webhooks.js";

export { screenshotDirectory } from "./browser-suite/fixture.js";

export interface BrowserSuiteOptions {
  name: string;
  /**
   * Starts the example's app in-process on 127.0.0.1:`port`, the port the example's own
   * configuration (PORT, so APP_ORIGIN) names: email links then land on the page's origin.
   */
  start: StartExample;
  /**
   * The tests to run instead of all of `BROWSER_TESTS`, each named by the start of its name, which
   * must fit exactly one test (else the file fails when it is collected): `PER_FRAMEWORK_TESTS` on
   * every example but the one that runs them all.
   */
  only?: readonly string[];
}

/**
 * The browser tests by area, in the order they run: the whole journey first, then one test per UI
 * issue, each with its own account (the back office's admins are made once and shared by its tests).
 */
export const BROWSER_TESTS: readonly BrowserTests[] = [
  journeyTests,
  uiIssuesTests,
  twoFactorTests,
  signedInTests,
  sessionsTests,
  roughEdgesTests,
  accountTests,
  backOfficeTests,
  passkeysTests,
  accessibilityTests,
  emailSignInTests,
  pageStateTests,
  pagePolishTests,
  organizationsTests,
  apiKeysTests,
  auditLogTests,
  webhooksTests,
  ssoTests,
  trustedBrowsersTests,
  captchaTests,
  oauthProviderTests,
  oauthClientsTests,
];

/**
 * The browser tests whose outcome can depend on the framework that serves the UI, by the start of
 * their names. The UI is the same static files on every example and the core answers every auth
 * route, so the whole suite runs on one example (Express, the one `pnpm dev` starts) and these on
 * the others. What a framework adds, and the tests that watch it in the browser:
 * - the sign-in and sign-out journey, static files at every UI path, the outbox page, a 304: the
 *   journey, "ui (a)" (the outbox as a page, and as JSON for `Accept: application/json`) and
 *   "ui (g)" (the favicon, an SVG);
 * - cookies and refresh: HttpOnly and SameSite (the journey), no Max-Age without "Keep me signed
 *   in" on sign-in and refresh ("ui (i) - 'Keep me'"), the access cookie's Max-Age and the refresh
 *   before it ends ("ui (27a)"), two refreshes answered at once, the device cookie kept through a
 *   sign-out and cleared when forgotten ("ui (49)"), the emailed link's page that signs in only on
 *   its POST ("email sign-in (30)");
 * - body parsing and headers of the example's own routes and of the adapter: the QR code's POST
 *   /ui/qr behind each framework's body limit ("ui (e)"), the User-Agent each framework hands to
 *   the core ("ui (i) - the activity page" names the browser), a streamed download with its file
 *   name ("audit log (47c)").
 * The identity providers' 302s are checked over HTTP on every adapter (identity-providers.test.ts)
 * and in a browser on Express (oidc-browser.test.ts); the SSO sign-in's redirects and the identity
 * provider's form post to the ACS ("ui (48)") in a browser on Express only: the adapters hand the
 * raw body to the core, which reads the form, as for the OAuth provider's token endpoint. The
 * rest of the suite checks the UI's own behaviour (what a page shows, says and sends), which is
 * the same on every framework; every auth route is also checked over HTTP on each adapter and
 * store by the adapter suite (@portcullis/testing), and the examples' own routes by the example
 * suite (example-suite.ts).
 */
export const PER_FRAMEWORK_TESTS: readonly string[] = [
  "ui - sign up, verify from the outbox",
  "ui (a) - /dev/outbox",
  "ui (e) - TOTP setup",
  "ui (i) - 'Keep me signed in'",
  "two tabs of one browser refresh at the same moment",
  "ui (i) - the activity page",
  "ui (g) - ",
  "ui (27a) - ",
  "email sign-in (30) - ",
  "audit log (47c) - ",
  "ui (49) - ",
];

/** The tests of `BROWSER_TESTS` in their order, only those `only` names when it is given. */
const selectTests = (only: readonly string[] | undefined): [string, BrowserTestBody][] => {
  const all = BROWSER_TESTS.flatMap((tests) => Object.entries(tests));
  if (only === undefined) return all;
  for (const start of only) {
    const fits = all.filter(([name]) => name.startsWith(start)).length;
    if (fits !== 1)
      throw new Error(`runBrowserSuite: "${start}" is the start of ${fits} test names, not one`);
  }
  return all.filter(([name]) => only.some((start) => name.startsWith(start)));
};

/**
 * The example web UI in Debian Chromium (playwright-core): the tests of `BROWSER_TESTS` (or those
 * `options.only` names), each a named record run against one app and one browser (the
 * `BrowserFixture`). Screenshots at 375 and 1280 px go to `screenshotDirectory(name)` (the OS temp
 * folder, never git). Skipped without Chromium.
 */
export function runBrowserSuite(options: BrowserSuiteOptions): void {
  const tests = selectTests(options.only);
  describe.skipIf(!existsSync(CHROMIUM_PATH))(`example UI in a real browser: ${options.name}`, () => {
    const fixture = new BrowserFixture(options.start, screenshotDirectory(options.name));
    beforeAll(() => fixture.open(), 30_000);
    afterAll(() => fixture.close());
    for (const [name, body] of tests) it(name, () => body(fixture), body.timeout);
  });
}
