import type { Compilable, CompiledQuery } from "kysely";
import type { AnyKysely } from "./context.js";

/** Stands for the `index`-th argument while the query is built; the compiled parameters hold it. */
class Slot {
  constructor(readonly index: number) {}
}

/** Where each compiled parameter comes from: an argument's index, or a value the build fixed. */
type Source = number | { value: unknown };

interface Compiled {
  query: CompiledQuery;
  sources: Source[];
}

/**
 * A query built and compiled once per Kysely instance, then run with new arguments: each call
 * sends the same SQL text with a fresh parameter array, skipping Kysely's building and compiling
 * (a fifth of the client's work per statement in the GET /me profile). `build` receives `db` and
 * one placeholder per argument, which it must use as plain values (`where(column, "=", slot)`,
 * never inside SQL text or a list whose length varies); each placeholder's position among the
 * compiled parameters is found after compiling, so the parameter order is the dialect's own.
 * Plugins of `db` apply as they would to the built query (the compiled text is `db`'s), and its
 * results go through them. Returns the rows.
 */
export function compiledQuery<Args extends unknown[], Row>(
  arity: Args["length"],
  build: (db: AnyKysely, ...slots: unknown[]) => Compilable<Row>,
): (db: AnyKysely, ...args: Args) => Promise<Row[]> {
  const cache = new WeakMap<AnyKysely, Compiled>();
  const compile = (db: AnyKysely): Compiled => {
    const slots = Array.from({ length: arity }, (_, index) => new Slot(index));
    const query = build(db, ...slots).compile();
    const sources = query.parameters.map(
      (value): Source => (value instanceof Slot ? value.index : { value }),
    );
    for (const slot of slots) {
      if (!sources.includes(slot.index))
        throw new TypeError(`compiledQuery: argument ${slot.index} is not a parameter of the compiled query`);
    }
    return { query, sources };
  };
  return async (db, ...args) => {
    let compiled = cache.get(db);
    if (!compiled) {
      compiled = compile(db);
      cache.set(db, compiled);
    }
    const { query, sources } = compiled;
    const parameters = sources.map((source) => (typeof source === "number" ? args[source] : source.value));
    const result = await db.executeQuery<Row>({ ...query, parameters });
    return result.rows;
  };
}
