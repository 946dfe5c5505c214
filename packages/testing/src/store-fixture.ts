import { randomUUID } from "node:crypto";
import type { SessionRecord, SessionStore, UserRecord } from "@portcullis/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

/** What a store suite needs from the caller for each test. */
export interface StoreFixture<S> {
  store: S;
  /**
   * Moves the store's clock forward by `ms` (a memory store built with a fake clock); a negative
   * `ms` sets it back (a clock jump corrected). Without it
   * the suite waits in real time with short TTLs, so a store whose time cannot be moved (Redis)
   * is tested as it is.
   */
  advance?: (ms: number) => void | Promise<void>;
  /**
   * Reads the clock the store's expiries run on, in milliseconds, when the test cannot move it
   * (Redis: the server's `TIME`). Without `advance`, the suite waits until this clock has moved
   * by the time it lets pass, so the wait ends by the store's own measure, not the test
   * process's. Default: `Date.now`. The session suite also stamps the `createdAt` of sessions
   * whose lifetimes it tests with it, so a store with a fake clock passes that clock's `now`.
   */
  now?: () => number | Promise<number>;
  /** Called after each test (close connections, drop keys). */
  cleanup?: () => void | Promise<void>;
}

export interface StoreSuiteOptions<S> {
  /** Shown in the describe block, e.g. "memory". Default: "store". */
  name?: string;
  /** Builds a fresh store (or a fresh key prefix on a shared server) for each test. */
  create: () => StoreFixture<S> | Promise<StoreFixture<S>>;
}

/** A unique id per test, so suites can share one Redis without colliding. */
export const uniqueId = (label: string) => `${label}-${randomUUID()}`;

/** A new session record of the suites (ids minted by `sessions` when it mints them), with `overrides`. */
export const sampleSession = (
  sessions: SessionStore,
  overrides: Partial<SessionRecord> = {},
): SessionRecord => {
  const userId = overrides.userId ?? uniqueId("user");
  return {
    id: overrides.id ?? sessions.createSessionId?.(userId) ?? uniqueId("session"),
    userId,
    browser: "Firefox 130",
    os: "Linux",
    ip: "203.0.113.7",
    createdAt: 1_700_000_000_000,
    lastActiveAt: 1_700_000_000_000,
    refreshTokenHash: uniqueId("hash"),
    accessTokenJti: uniqueId("jti"),
    ...overrides,
  };
};

/** A new user record of the suites (a unique id and address), never signed in, with `overrides`. */
export const sampleUser = (overrides: Partial<UserRecord> = {}): UserRecord => {
  const id = overrides.id ?? uniqueId("user");
  return {
    id,
    email: `${id}@example.test`,
    emailVerified: true,
    name: "Ada",
    passwordHash: null,
    identityProviders: [],
    twoFactor: { methods: [], preferredMethod: null, totpSecretEncrypted: null, recoveryCodeHashes: [] },
    createdAt: 1_700_000_000_000,
    ...overrides,
  };
};

/** How long past `ms` a wait for the store's clock may take before the suite gives up. */
const CLOCK_WAIT_SLACK_MS = 10_000;

/**
 * Lets `ms` pass on the store's clock: moved when the fixture can; otherwise waited for until the
 * store's clock (`fixture.now`) reads `ms` later, polling it up to `ms` + 10 s, then failing.
 */
export async function elapse(fixture: StoreFixture<unknown>, ms: number): Promise<void> {
  if (fixture.advance) {
    await fixture.advance(ms);
    return;
  }
  const now = fixture.now ?? Date.now;
  const until = (await now()) + ms;
  const deadline = Date.now() + ms + CLOCK_WAIT_SLACK_MS;
  for (let left = ms; left > 0; left = until - (await now())) {
    if (Date.now() > deadline)
      throw new Error(`the store's clock did not move ${ms} ms within ${ms + CLOCK_WAIT_SLACK_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, Math.min(left, 50)));
  }
}

/** Ids a store minted (`undefined`: it mints none): each one 16-64 base64url characters, none twice. */
export function expectMintedIds(ids: (string | undefined)[]): void {
  const minted = ids.filter((id) => id !== undefined);
  for (const id of minted) expect(id).toMatch(/^[A-Za-z0-9_-]{16,64}$/);
  expect(new Set(minted).size).toBe(minted.length);
}

/** `count` calls of `call` started together (in one tick), so a store's atomicity is put to the test. */
export const concurrently = <T>(count: number, call: (index: number) => Promise<T>): Promise<T[]> =>
  Promise.all(Array.from({ length: count }, (_, index) => call(index)));

/** The tests of a store suite by describe block ("" for none): name → body, given the test's context. */
export type StoreTests<C> = Record<string, Record<string, (context: C) => unknown>>;

/** The context of a test that needs only its fixture. */
export interface StoreContext<S> {
  store: S;
  fixture: StoreFixture<S>;
}

export const storeContext = <S>(fixture: StoreFixture<S>): StoreContext<S> => ({
  store: fixture.store,
  fixture,
});

/** A store's conformance suite, run with the caller's options (`runUserStoreSuite` and the others). */
export type StoreSuite<S> = (options: StoreSuiteOptions<S>) => void;

/**
 * The conformance suite of `port` ("UserStore conformance: memory"): `groups` of tests, each with
 * a fresh fixture (cleaned up after it) and `context` of it (`storeContext` when the store is all
 * a test needs).
 */
export function defineStoreSuite<S, C>(
  port: string,
  context: (fixture: StoreFixture<S>) => C,
  groups: StoreTests<C>,
): StoreSuite<S> {
  return (options) => {
    describe(`${port} conformance: ${options.name ?? "store"}`, () => {
      let fixture: StoreFixture<S> | undefined;
      beforeEach(async () => {
        fixture = await options.create();
      });
      afterEach(async () => {
        await fixture?.cleanup?.();
      });
      const define = (tests: StoreTests<C>[string]) => () => {
        for (const [name, test] of Object.entries(tests)) {
          it(name, async () => {
            if (!fixture) throw new Error("no fixture: options.create failed");
            await test(context(fixture));
          });
        }
      };
      for (const [group, tests] of Object.entries(groups)) {
        if (group) describe(group, define(tests));
        else define(tests)();
      }
    });
  };
}
