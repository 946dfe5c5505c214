// The OAuthStore conformance tests of the consents: saveOAuthConsent, getOAuthConsent,
// listOAuthConsents and deleteOAuthConsent.
import { expect } from "vitest";
import { HOUR, newClientId, newUserId, type OAuthTests, T0 } from "./oauth-store-context.js";

/** The tests of the consents' four methods. */
export const OAUTH_CONSENT_TESTS: OAuthTests = {
  "saveOAuthConsent - stores it; getOAuthConsent reads it back, a copy; null for another user or client":
    async ({ store, storedClient, consent }) => {
      const userId = newUserId();
      const { clientId } = await storedClient();
      const other = await storedClient();
      const made = consent(userId, clientId, { scopes: ["profile", "openid", "offline_access"] });
      const given = structuredClone(made);
      await store.saveOAuthConsent(given);
      given.scopes.push("admin");
      const read = await store.getOAuthConsent(userId, clientId);
      expect(read).toEqual(made);
      read?.scopes.pop();
      expect(await store.getOAuthConsent(userId, clientId)).toEqual(made);
      expect(await store.getOAuthConsent(newUserId(), clientId)).toBeNull();
      expect(await store.getOAuthConsent(userId, other.clientId)).toBeNull();
      expect(await store.getOAuthConsent(userId, newClientId())).toBeNull();
    },
  "saveOAuthConsent - saved again: the new scopes and updatedAt, the first createdAt": async ({
    store,
    storedClient,
    consent,
  }) => {
    const userId = newUserId();
    const { clientId } = await storedClient();
    const first = consent(userId, clientId, { scopes: ["openid"], createdAt: T0, updatedAt: T0 });
    await store.saveOAuthConsent(structuredClone(first));
    const wider = consent(userId, clientId, {
      scopes: ["openid", "email", "profile"],
      createdAt: T0 + HOUR,
      updatedAt: T0 + HOUR,
    });
    await store.saveOAuthConsent(structuredClone(wider));
    const expected = { ...wider, createdAt: T0 };
    expect(await store.getOAuthConsent(userId, clientId)).toEqual(expected);
    expect(await store.listOAuthConsents(userId)).toEqual([expected]);
    // Narrower too: saving replaces, it does not merge.
    const narrower = consent(userId, clientId, {
      scopes: ["email"],
      createdAt: T0 + 2 * HOUR,
      updatedAt: T0 + 2 * HOUR,
    });
    await store.saveOAuthConsent(structuredClone(narrower));
    expect(await store.getOAuthConsent(userId, clientId)).toEqual({ ...narrower, createdAt: T0 });
  },
  "listOAuthConsents - the user's consents only, the latest updatedAt first": async ({
    store,
    storedClient,
    consent,
  }) => {
    const userId = newUserId();
    expect(await store.listOAuthConsents(userId)).toEqual([]);
    const [first, second, third] = [await storedClient(), await storedClient(), await storedClient()];
    const a = consent(userId, first.clientId, { createdAt: T0, updatedAt: T0 + 20_000 });
    const b = consent(userId, second.clientId, { createdAt: T0 + 1, updatedAt: T0 + 10_000 });
    const c = consent(userId, third.clientId, { createdAt: T0 + 2, updatedAt: T0 + 30_000 });
    for (const made of [a, b, c]) await store.saveOAuthConsent(structuredClone(made));
    const otherUser = consent(newUserId(), first.clientId, { updatedAt: T0 + 99_000 });
    await store.saveOAuthConsent(structuredClone(otherUser));
    expect(await store.listOAuthConsents(userId)).toEqual([c, a, b]);
    // Saved again later, b comes first.
    const widened = consent(userId, second.clientId, { scopes: ["openid", "email"], updatedAt: T0 + 40_000 });
    await store.saveOAuthConsent(structuredClone(widened));
    expect(await store.listOAuthConsents(userId)).toEqual([{ ...widened, createdAt: b.createdAt }, c, a]);
    expect(await store.listOAuthConsents(otherUser.userId)).toEqual([otherUser]);
  },
  "deleteOAuthConsent - true and the consent is gone; false when absent; the others stay": async ({
    store,
    storedClient,
    consent,
  }) => {
    const userId = newUserId();
    const [gone, kept] = [await storedClient(), await storedClient()];
    const mine = consent(userId, gone.clientId);
    const keptOfMine = consent(userId, kept.clientId);
    const theirs = consent(newUserId(), gone.clientId);
    for (const made of [mine, keptOfMine, theirs]) await store.saveOAuthConsent(structuredClone(made));
    expect(await store.deleteOAuthConsent(userId, gone.clientId)).toBe(true);
    expect(await store.getOAuthConsent(userId, gone.clientId)).toBeNull();
    expect(await store.listOAuthConsents(userId)).toEqual([keptOfMine]);
    expect(await store.getOAuthConsent(theirs.userId, gone.clientId)).toEqual(theirs);
    expect(await store.deleteOAuthConsent(userId, gone.clientId)).toBe(false);
    expect(await store.deleteOAuthConsent(newUserId(), kept.clientId)).toBe(false);
    // Saved again after the deletion: a new consent, with its own createdAt.
    const again = consent(userId, gone.clientId, { createdAt: T0 + HOUR, updatedAt: T0 + HOUR });
    await store.saveOAuthConsent(structuredClone(again));
    expect(await store.getOAuthConsent(userId, gone.clientId)).toEqual(again);
  },
};
