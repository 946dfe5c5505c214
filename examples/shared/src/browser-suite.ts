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
  type BrowserTests,
  type StartExample,
  screenshotDirectory,
} from "./browser-suite/fixture.js";
import { journeyTests } from "./browser-suite/journey.js";
import { organizationsTests } from "./browser-suite/organizations.js";
import { pagePolishTests } from "./browser-suite/page-polish.js";
import { pageStateTests } from "./browser-suite/page-state.js";
import { passkeysTests } from "./browser-suite/passkeys.js";
import { roughEdgesTests } from "./browser-suite/rough-edges.js";
import { sessionsTests } from "./browser-suite/sessions.js";
import { signedInTests } from "./browser-suite/signed-in.js";
import { trustedBrowsersTests } from "./browser-suite/trusted-browsers.js";
import { twoFactorTests } from "./browser-suite/two-factor.js";
import { uiIssuesTests } from "./browser-suite/ui-issues.js";

export { screenshotDirectory } from "./browser-suite/fixture.js";

export interface BrowserSuiteOptions {
  name: string;
  /**
   * Starts the example's app in-process on 127.0.0.1:`port`, the port the example's own
   * configuration (PORT, so APP_ORIGIN) names: email links then land on the page's origin.
   */
  start: StartExample;
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
  trustedBrowsersTests,
  captchaTests,
];

/**
 * The example web UI in Debian Chromium (playwright-core), the same checks for each example: the
 * tests of `BROWSER_TESTS`, each a named record run against one app and one browser (the
 * `BrowserFixture`). Screenshots at 375 and 1280 px go to `screenshotDirectory(name)` (the OS temp
 * folder, never git). Skipped without Chromium.
 */
export function runBrowserSuite(options: BrowserSuiteOptions): void {
  describe.skipIf(!existsSync(CHROMIUM_PATH))(`example UI in a real browser: ${options.name}`, () => {
    const fixture = new BrowserFixture(options.start, screenshotDirectory(options.name));
    beforeAll(() => fixture.open(), 30_000);
    afterAll(() => fixture.close());
    for (const tests of BROWSER_TESTS)
      for (const [name, body] of Object.entries(tests)) it(name, () => body(fixture), body.timeout);
  });
}
