import { createMemoryStores } from "@portcullis/store-memory";
import { createFakeClock } from "@portcullis/testing";
import { describe, expect, it } from "vitest";
import { createAuth } from "../create-auth/create-auth.js";
import type { EmailMessage } from "../ports/mailer.js";
import type { ChangeStores, StoresTogether } from "../ports/stores-together.js";
import { APP_ORIGIN, code, fastHasher, signIn, TEST_SECRET } from "../test-support.js";
import { EMAIL, NEW_PASSWORD, signedInWithResetLink } from "../test-support-faults.js";

// `stores.together` is trusted as given: the host passes it only with the stores it works on, as
// the package created them, and the core compares no store with another. Here every configured
// store is a copy of a memory one (a new object), and `together` runs the change on the
// originals: the core still runs the change's writes through it.

/** Memory stores given as copies, with a `together` (or none) that counts its runs and their writes. */
async function resetScenario({ together: given = true } = {}) {
  const clock = createFakeClock({ start: Date.UTC(2026, 0, 1) });
  const memory = createMemoryStores({ clock, sweepIntervalMs: 0 });
  const runs = { count: 0, writes: [] as string[] };
  const recording = (stores: ChangeStores): ChangeStores => ({
    ...stores,
    users: {
      ...stores.users,
      update: (id, changes) => {
        runs.writes.push("users.update");
        return stores.users.update(id, changes);
      },
    },
  });
  const together: StoresTogether = {
    run: async (work) => {
      runs.count += 1;
      return work(recording(memory));
    },
  };
  const sent: EmailMessage[] = [];
  const auth = createAuth({
    secret: TEST_SECRET,
    stores: {
      users: { ...memory.users },
      cooldowns: { ...memory.cooldowns },
      sessions: { ...memory.sessions },
      allowlist: { ...memory.allowlist },
      singleUseTokens: { ...memory.singleUseTokens },
      ...(given ? { together } : {}),
    },
    clock,
    appOrigin: APP_ORIGIN,
    passwordHasher: fastHasher(),
    mailer: { send: async (message) => void sent.push(message) },
    email: { enabled: true, loginAlerts: false },
  });
  return { auth, runs, ...(await signedInWithResetLink(auth, sent)) };
}

describe("stores.together as given", () => {
  it("resetPassword - runs its writes through the given together, whatever objects the stores are", async () => {
    const { auth, runs, token, before } = await resetScenario();
    expect(await code(auth.resetPassword({ token }, { newPassword: NEW_PASSWORD }))).toBe("OK");
    expect(runs).toEqual({ count: 1, writes: ["users.update"] });
    expect(await code(auth.authenticate({ token: before.accessToken }))).toBe("ACCESS_TOKEN_INVALID");
    expect(await code(signIn(auth, { email: EMAIL, password: NEW_PASSWORD }))).toBe("OK");
  });

  it("resetPassword - without together the writes go to the configured stores one by one", async () => {
    const { auth, runs, token, before } = await resetScenario({ together: false });
    expect(await code(auth.resetPassword({ token }, { newPassword: NEW_PASSWORD }))).toBe("OK");
    expect(runs).toEqual({ count: 0, writes: [] });
    expect(await code(auth.authenticate({ token: before.accessToken }))).toBe("ACCESS_TOKEN_INVALID");
    expect(await code(signIn(auth, { email: EMAIL, password: NEW_PASSWORD }))).toBe("OK");
  });
});
