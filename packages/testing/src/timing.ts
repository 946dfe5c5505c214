// What the timing suites share (api-key-timing-suite.ts, request-timing-suite.ts): the options
// they both take, the system clock their stores run on, the auth they time and a median.
import type { Auth, AuthOptions, AuthStores, Clock } from "@portcullis/core";
import { createArgon2Hasher, createAuth, silentLogger } from "@portcullis/core";

/** The options of every timing suite. */
export interface TimingSuiteOptions {
  /** Shown in the describe block, e.g. "memory", "sqlite" or "postgresql". */
  name: string;
  /** Fresh stores for one auth (on the system clock). */
  createStores(clock: Clock): Omit<AuthStores, "identities"> | Promise<Omit<AuthStores, "identities">>;
}

/** The clock of a timing suite's stores: the machine's, since the suites measure real time. */
export const SYSTEM_CLOCK: Clock = { now: () => Date.now() };

/**
 * An auth over `stores` with `features` on, ready: cheap argon2, no log, a mailer that sends
 * nothing and no login alerts, so only the work the suite times is left.
 */
export async function timedAuth(
  secret: string,
  stores: AuthOptions["stores"],
  features: Pick<AuthOptions, "apiKeys" | "emailSignIn" | "webauthn">,
): Promise<Auth> {
  const auth = createAuth({
    secret,
    stores,
    passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
    logger: silentLogger,
    appOrigin: "https://app.example.test",
    mailer: { send: async () => undefined },
    email: { loginAlerts: false },
    ...features,
  });
  await auth.ready();
  return auth;
}

/** The median of `values`. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}
