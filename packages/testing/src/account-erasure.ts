import {
  type Auth,
  type AuthStores,
  type Clock,
  createArgon2Hasher,
  createAuth,
  type EmailMessage,
  silentLogger,
} from "@portcullis/core";
import { expect } from "vitest";
import { linkToken } from "./adapter-suite/fixture.js";
import { referenceTotp } from "./two-factor-suite.js";

const PASSWORD = "correct horse battery staple";
const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:130.0) Gecko/20100101 Firefox/130.0";

/** What an erased account was known by: no store may hold any of these afterwards. */
export interface ErasedAccount {
  userId: string;
  email: string;
  /** The address the account asked to move to (never confirmed): its cooldown key is not the user's. */
  requestedEmail: string;
  /** Every string that names the user: the id and the address. */
  names: string[];
}

/**
 * Fills `stores` with everything an account leaves behind (two sessions with their allowlisted
 * access tokens, a failed login's throttle counter, a step-up, verification, reset and
 * address-change links with their cooldowns, activity, an identity-provider link when `stores`
 * has an identity store, an export, an emailed sign-in's link and code with a wrong code counted,
 * a required password change's token, TOTP set up with its time step claimed, an API key when
 * `stores` has an API key store), then deletes the account with `DELETE /me`'s use case
 * (`auth.account.delete`). Each store's test then scans the store itself for `names`: Redis its
 * keys and values, SQL every table, memory its maps. A second account stays, to show the scan
 * can find a user who was not deleted.
 */
export async function fillAndEraseAccount(
  stores: AuthStores,
  options: { clock?: Clock; prefix?: string } = {},
): Promise<{ erased: ErasedAccount; kept: ErasedAccount; auth: Auth }> {
  const emails: EmailMessage[] = [];
  const auth = erasureAuth(stores, emails, options.clock);
  const tag = options.prefix ?? Math.random().toString(36).slice(2, 10);
  const email = `erased-${tag}@example.test`;
  const keptEmail = `kept-${tag}@example.test`;
  const requestedEmail = `requested-${tag}@example.test`;

  await auth.register({ request: REQUEST }, { email, password: PASSWORD, name: "Erin Erased" });
  await auth.register({ request: REQUEST }, { email: keptEmail, password: PASSWORD });
  await expect(
    auth.login({ request: REQUEST }, { email, password: "a wrong password" }),
  ).rejects.toMatchObject({
    code: "INVALID_CREDENTIALS",
  });
  const first = await signIn(auth, email);
  const second = await signIn(auth, email);
  const kept = await signIn(auth, keptEmail);
  const userId = first.principal.userId;
  if (stores.identities) await linkProviderIdentity(stores.identities, userId, email);
  await auth.requestPasswordReset({ request: REQUEST }, { email });
  await auth.idle();
  const stepped = await auth.stepUp({ principal: first.principal, request: REQUEST }, { password: PASSWORD });
  if (stepped.twoFactorRequired) throw new Error("unexpected 2FA");
  const call = { principal: first.principal, stepUpToken: stepped.stepUpToken, request: REQUEST };
  await auth.account.requestEmailChange(call, { newEmail: requestedEmail });
  await auth.account.export(call);
  await auth.sessions.revoke({ principal: second.principal, request: REQUEST }, second.principal.sessionId);
  const third = await signIn(auth, email);
  expect((await auth.sessions.list({ principal: third.principal })).length).toBe(2);
  expect(linkToken(emails.find((message) => message.kind === "email-change"))).not.toBe("");
  await leaveSignInTraces(auth, { call, email, userId, emails, clock: options.clock });
  const apiKey = stores.apiKeys ? (await auth.apiKeys.create(call, { name: "ci" })).key : undefined;

  await auth.account.delete(call);
  await auth.idle();
  if (apiKey !== undefined)
    await expect(auth.authenticate({ token: apiKey })).rejects.toMatchObject({ code: "API_KEY_INVALID" });
  await expect(auth.authenticate({ token: third.result.accessToken })).rejects.toMatchObject({
    code: "ACCESS_TOKEN_INVALID",
  });
  expect(await stores.users.findById(userId)).toBeNull();
  return {
    auth,
    erased: { userId, email, requestedEmail, names: [userId, email] },
    kept: {
      userId: kept.principal.userId,
      email: keptEmail,
      requestedEmail: keptEmail,
      names: [kept.principal.userId, keptEmail],
    },
  };
}

/** Loopback: no per-IP counter is kept, so every key left in a cooldown store is about an account. */
const REQUEST = { ip: "127.0.0.1", userAgent: FIREFOX };

/** The auth that fills the stores: cheap hashing, emailed sign-in on, every email kept in `emails`. */
function erasureAuth(stores: AuthStores, emails: EmailMessage[], clock: Clock | undefined): Auth {
  return createAuth({
    secret: "account-erasure-secret-yRoBaYyJRXBp6a-YqxktwBnOleaom8qQEaUli8-oBtc",
    stores,
    passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
    ...(clock ? { clock } : {}),
    logger: silentLogger,
    appOrigin: "https://app.example.test",
    mailer: { send: async (message) => void emails.push(message) },
    emailSignIn: { enabled: true },
    ...(stores.apiKeys ? { apiKeys: {} } : {}),
  });
}

/** A password sign-in of `address` (no 2FA yet) and its principal. */
async function signIn(auth: Auth, address: string) {
  const result = await auth.login({ request: REQUEST }, { email: address, password: PASSWORD });
  if (result.twoFactorRequired) throw new Error("unexpected 2FA");
  const principal = await auth.authenticate({ token: result.accessToken });
  return { principal, result };
}

/** An identity-provider link of the user, stored as signing in with a provider would. */
async function linkProviderIdentity(
  identities: NonNullable<AuthStores["identities"]>,
  userId: string,
  email: string,
) {
  await identities.link({
    userId,
    provider: "oidc",
    issuer: "https://idp.example.test",
    subject: `subject-of-${userId}`,
    email,
    createdAt: Date.now(),
  });
}

/**
 * What the other ways in leave: an emailed sign-in (its link and code hold the address) with a
 * wrong code counted, a required password change's token, and TOTP set up with its time step claimed.
 */
async function leaveSignInTraces(
  auth: Auth,
  {
    call,
    email,
    userId,
    emails,
    clock,
  }: {
    call: Parameters<Auth["getTotpSetup"]>[0];
    email: string;
    userId: string;
    emails: EmailMessage[];
    clock: Clock | undefined;
  },
): Promise<void> {
  // An emailed sign-in (its link and code hold the address) and a wrong code counted on the address.
  await auth.requestEmailSignIn({ request: REQUEST }, { email });
  await expect(auth.signInWithEmail({ request: REQUEST }, { email, code: "000000" })).rejects.toMatchObject({
    code: expect.any(String),
  });
  // A password change required by the back office: the password sign-in gets a token for it.
  await auth.host.requirePasswordChange({}, { userId, endSessions: false });
  await expect(auth.login({ request: REQUEST }, { email, password: PASSWORD })).rejects.toMatchObject({
    code: "PASSWORD_CHANGE_REQUIRED",
  });
  // TOTP set up (on a verified address: the link is used, and marked so): the confirming code's
  // time step is claimed for the user (replays fail).
  const verification = emails.find(
    (message) => message.kind === "email-verification" && message.to === email,
  );
  await auth.verifyEmail({ token: linkToken(verification), request: REQUEST });
  const totp = await auth.getTotpSetup(call);
  await auth.confirmTotpSetup(call, {
    setupToken: totp.setupToken,
    code: referenceTotp(totp.secret, clock?.now() ?? Date.now()),
  });
  await auth.idle();
}

/** The entries of `dump` (one string per key, row or value) that contain any of `names`. */
export function entriesNaming(dump: Iterable<string>, names: readonly string[]): string[] {
  return [...dump].filter((entry) => names.some((name) => entry.includes(name)));
}
