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
 * has an identity store, an export), then deletes the account with `DELETE /me`'s use case
 * (`auth.account.delete`). Each store's test then scans the store itself for `names`: Redis its
 * keys and values, SQL every table, memory its maps. A second account stays, to show the scan
 * can find a user who was not deleted.
 */
export async function fillAndEraseAccount(
  stores: AuthStores,
  options: { clock?: Clock; prefix?: string } = {},
): Promise<{ erased: ErasedAccount; kept: ErasedAccount; auth: Auth }> {
  const emails: EmailMessage[] = [];
  const auth = createAuth({
    secret: "account-erasure-secret-yRoBaYyJRXBp6a-YqxktwBnOleaom8qQEaUli8-oBtc",
    stores,
    passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
    ...(options.clock ? { clock: options.clock } : {}),
    logger: silentLogger,
    appOrigin: "https://app.example.test",
    mailer: { send: async (message) => void emails.push(message) },
  });
  const tag = options.prefix ?? Math.random().toString(36).slice(2, 10);
  const email = `erased-${tag}@example.test`;
  const keptEmail = `kept-${tag}@example.test`;
  const requestedEmail = `requested-${tag}@example.test`;
  // Loopback: no per-IP counter is kept, so every key left in a cooldown store is about an account.
  const request = { ip: "127.0.0.1", userAgent: FIREFOX };
  const signIn = async (address: string) => {
    const result = await auth.login({ request }, { email: address, password: PASSWORD });
    if (result.twoFactorRequired) throw new Error("unexpected 2FA");
    const principal = await auth.authenticate({ token: result.accessToken });
    return { principal, result };
  };

  await auth.register({ request }, { email, password: PASSWORD, name: "Erin Erased" });
  await auth.register({ request }, { email: keptEmail, password: PASSWORD });
  await expect(auth.login({ request }, { email, password: "a wrong password" })).rejects.toMatchObject({
    code: "INVALID_CREDENTIALS",
  });
  const first = await signIn(email);
  const second = await signIn(email);
  const kept = await signIn(keptEmail);
  const userId = first.principal.userId;
  if (stores.identities) {
    await stores.identities.link({
      userId,
      provider: "oidc",
      issuer: "https://idp.example.test",
      subject: `subject-of-${userId}`,
      email,
      createdAt: Date.now(),
    });
  }
  await auth.requestPasswordReset({ request }, { email });
  await auth.idle();
  const stepped = await auth.stepUp({ principal: first.principal, request }, { password: PASSWORD });
  if (stepped.twoFactorRequired) throw new Error("unexpected 2FA");
  const call = { principal: first.principal, stepUpToken: stepped.stepUpToken, request };
  await auth.account.requestEmailChange(call, { newEmail: requestedEmail });
  await auth.account.export(call);
  await auth.sessions.revoke({ principal: second.principal, request }, second.principal.sessionId);
  const third = await signIn(email);
  expect((await auth.sessions.list({ principal: third.principal })).length).toBe(2);
  expect(linkToken(emails.find((message) => message.kind === "email-change"))).not.toBe("");

  await auth.account.delete(call);
  await auth.idle();
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

/** The entries of `dump` (one string per key, row or value) that contain any of `names`. */
export function entriesNaming(dump: Iterable<string>, names: readonly string[]): string[] {
  return [...dump].filter((entry) => names.some((name) => entry.includes(name)));
}
