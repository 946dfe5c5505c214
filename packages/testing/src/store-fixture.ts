import { randomUUID } from "node:crypto";

/** What a store suite needs from the caller for each test. */
export interface StoreFixture<S> {
  store: S;
  /**
   * Moves the store's clock forward by `ms` (memory stores with a fake clock). Without it the
   * suite waits in real time, so a store whose time cannot be moved (Redis) is tested too.
   */
  advance?: (ms: number) => void | Promise<void>;
  /** Called after each test (close connections, drop keys). */
  cleanup?: () => void | Promise<void>;
}

export interface StoreSuiteOptions<S> {
  /** Shown in the describe block, e.g. "memory". */
  name: string;
  /** Builds a fresh store (or a fresh key prefix on a shared server) for each test. */
  create: () => StoreFixture<S> | Promise<StoreFixture<S>>;
}

/** A unique id per test, so suites can share one Redis without colliding. */
export const uniqueId = (label: string) => `${label}-${randomUUID()}`;

/** Lets `ms` pass on the store's clock: moved when the fixture can, waited for otherwise. */
export async function elapse(fixture: StoreFixture<unknown>, ms: number): Promise<void> {
  if (fixture.advance) await fixture.advance(ms);
  else await new Promise((resolve) => setTimeout(resolve, ms));
}
