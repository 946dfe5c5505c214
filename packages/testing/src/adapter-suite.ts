import { describe } from "vitest";
import { activityTests } from "./adapter-suite/activity.js";
import { backOfficeTests } from "./adapter-suite/back-office.js";
import { breachedPasswordsTests } from "./adapter-suite/breached-passwords.js";
import { captchaTests } from "./adapter-suite/captcha.js";
import { cookiesTests } from "./adapter-suite/cookies.js";
import { credentialsTests } from "./adapter-suite/credentials.js";
import { csrfAndInputTests } from "./adapter-suite/csrf-and-input.js";
import { devicesTests } from "./adapter-suite/devices.js";
import { emailSignInTests } from "./adapter-suite/email-sign-in.js";
import { emailsTests } from "./adapter-suite/emails.js";
import { type AdapterSuiteOptions, type AppTests, runAppTests } from "./adapter-suite/fixture.js";
import { hostApiTests } from "./adapter-suite/host-api.js";
import { lifetimesTests } from "./adapter-suite/lifetimes.js";
import { loginTests } from "./adapter-suite/login.js";
import { organizationsTests } from "./adapter-suite/organizations.js";
import { passkeysTests } from "./adapter-suite/passkeys.js";
import { refreshReuseTests } from "./adapter-suite/refresh-reuse.js";
import { registrationTests } from "./adapter-suite/registration.js";
import { resetTests } from "./adapter-suite/reset.js";
import { routingTests } from "./adapter-suite/routing.js";
import {
  runSelfServiceAdapterSuite,
  runSelfServiceConcurrencySuite,
  selfServiceTests,
} from "./adapter-suite/self-service.js";
import { sessionsTests } from "./adapter-suite/sessions.js";
import { verificationTests } from "./adapter-suite/verification.js";
import { runLimitsAdapterSuite } from "./limits-suite.js";
import { runTwoFactorAdapterSuite } from "./two-factor-suite.js";

export type { AdapterSuiteOptions, StartedServer } from "./adapter-suite/fixture.js";

/** The areas of the adapter suite, each compared with its own golden transcript `<area>.txt`. */
export const ADAPTER_SUITE_AREAS: Record<string, AppTests> = {
  registration: registrationTests,
  login: loginTests,
  sessions: sessionsTests,
  cookies: cookiesTests,
  "csrf-and-input": csrfAndInputTests,
  routing: routingTests,
  emails: emailsTests,
  reset: resetTests,
  verification: verificationTests,
  "host-api": hostApiTests,
  credentials: credentialsTests,
  "refresh-reuse": refreshReuseTests,
  activity: activityTests,
  lifetimes: lifetimesTests,
  devices: devicesTests,
  "breached-passwords": breachedPasswordsTests,
  "email-sign-in": emailSignInTests,
  "self-service": selfServiceTests,
  "back-office": backOfficeTests,
  passkeys: passkeysTests,
};

export { runSelfServiceAdapterSuite };

/**
 * The `devices` area alone (known browsers: the device cookie, the login budget per account and
 * browser, login alerts), without transcripts: for stores the whole adapter suite does not run on
 * (each test builds its own auth on fresh stores from `createStores`).
 */
export function runDevicesAdapterSuite(
  options: Pick<AdapterSuiteOptions, "name" | "start" | "createStores" | "storeNow">,
): void {
  describe(`known browsers: ${options.name}`, () => runAppTests(options, "devices", devicesTests));
}

/**
 * The `credentials` area alone (what each route's credential is, the 2FA token judged on its own,
 * whether a login's email code went out), without transcripts: for stores the whole adapter suite
 * does not run on. No test moves the clock, so cooldowns on the store's own clock are fine.
 */
export function runCredentialsAdapterSuite(
  options: Pick<AdapterSuiteOptions, "name" | "start" | "createStores" | "storeNow">,
): void {
  describe(`credentials: ${options.name}`, () => runAppTests(options, "credentials", credentialsTests));
}

/**
 * The `email-sign-in` area alone (sign-in by an emailed link or code: single use, expiry, newer
 * requests, wrong-code limits, unknown addresses, the 2FA step), without transcripts: for stores
 * the whole adapter suite does not run on. Tests that wait out a cooldown use `storeNow`.
 */
export function runEmailSignInAdapterSuite(
  options: Pick<AdapterSuiteOptions, "name" | "start" | "createStores" | "storeNow">,
): void {
  describe(`email sign-in: ${options.name}`, () => runAppTests(options, "email-sign-in", emailSignInTests));
}

/**
 * The `back-office` area alone (the admin routes: listing with pagination, lock, unlock, ending
 * sessions, impersonation, required password change), without transcripts: for stores the whole
 * adapter suite does not run on. Impersonation's hour is passed on the suite's fake clock (the
 * access token's `exp` and the core's refresh check read it), never on a store's own clock.
 */
export function runBackOfficeAdapterSuite(
  options: Pick<AdapterSuiteOptions, "name" | "start" | "createStores" | "storeNow">,
): void {
  describe(`back office: ${options.name}`, () => runAppTests(options, "back-office", backOfficeTests));
}

/**
 * The CAPTCHA (`captcha`) against a siteverify stand-in on 127.0.0.1, without transcripts: the
 * token wanted, refused, taken from the body or `X-Captcha-Token`, a provider down or slow (refused,
 * or let through with `failOpen`), and login asking only after 3 failures.
 */
export function runCaptchaAdapterSuite(
  options: Pick<AdapterSuiteOptions, "name" | "start" | "createStores" | "storeNow">,
): void {
  describe(`captcha: ${options.name}`, () => runAppTests(options, "captcha", captchaTests));
}

/**
 * The `passkeys` area alone (registration, sign-in, step-up and removal with a software
 * authenticator, and each refusal), without transcripts: for stores the whole adapter suite does
 * not run on. `createStores` must include `passkeys`.
 */
export function runPasskeysAdapterSuite(
  options: Pick<AdapterSuiteOptions, "name" | "start" | "createStores" | "storeNow">,
): void {
  describe(`passkeys: ${options.name}`, () => runAppTests(options, "passkeys", passkeysTests));
}

/**
 * Organizations (members, roles, invitations, the active organization and `requirePermission`),
 * with a transcript: `start` must also mount the host routes `GET /host/projects` behind
 * `requirePermission(auth, "project:read")` and `POST /host/projects` behind `"project:write"`,
 * both answering `{ organizationId }`. `createStores` must include `organizations`, and the
 * sessions store `setActiveOrganization`. The tests pass invitation expiries and cooldowns on the
 * suite's fake clock, so they are for stores without `storeNow` (memory and SQL).
 */
export function runOrganizationsAdapterSuite(
  options: Pick<AdapterSuiteOptions, "name" | "start" | "createStores" | "transcripts">,
): void {
  describe(`organizations: ${options.name}`, () => runAppTests(options, "organizations", organizationsTests));
}

/**
 * Every HTTP behaviour of the contract through an adapter: each area of `ADAPTER_SUITE_AREAS`,
 * the two-factor suite and the limits suite. Every test builds its own auth and host app, so any
 * one of them runs alone (`vitest -t "<name>"`).
 */
export function runAdapterSuite(options: AdapterSuiteOptions): void {
  runTwoFactorAdapterSuite(options);
  runLimitsAdapterSuite(options);
  describe(`adapter conformance: ${options.name}`, () => {
    for (const [area, tests] of Object.entries(ADAPTER_SUITE_AREAS)) runAppTests(options, area, tests);
  });
  runSelfServiceConcurrencySuite(options);
}
