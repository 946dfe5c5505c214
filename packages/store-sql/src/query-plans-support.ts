import type { createSqlStores } from "./sql-stores.js";

/**
 * Test support for query-plans.test.ts and its parts (`query-plans-*.ts`; not part of the
 * package's exports): the types they share.
 */

/** `insert into <table> (<columns>) select <select> from <rows numbered 1 … n>`, in the dialect's way. */
export type Series = (n: number, select: string, table: string, columns: string) => string;

/** The stores whose calls are planned. */
export type PlannedStores = ReturnType<typeof createSqlStores>;

/** Hot calls of a store, each by the name a failure gives. */
export type HotCalls = [string, () => Promise<unknown>][];
