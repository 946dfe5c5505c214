import { performance } from "node:perf_hooks";
import type { Auth } from "@portcullis/core";
import { describe, expect, it, onTestFinished } from "vitest";
import { registerWithKey, rewritten } from "./adapter-suite/api-keys-fixture.js";
import type { StartedServer } from "./adapter-suite/fixture.js";
import { createHttpClient, type HttpClient } from "./http-client.js";
import { median, SYSTEM_CLOCK, type TimingSuiteOptions, timedAuth } from "./timing.js";

/** The options of `runApiKeyTimingSuite`: `createStores` must include `apiKeys`. */
export interface ApiKeyTimingSuiteOptions extends TimingSuiteOptions {
  /** Starts a host app with the auth routes and `GET /host/protected` behind requireAuth. */
  start(auth: Auth): Promise<StartedServer>;
  /** Measured rounds (one call of each kind per round), after a warm-up of a fifth as many. Default 600. */
  rounds?: number;
  /**
   * How far apart the kinds may be in process: the median of the rounds' differences at most
   * `ratio` of the valid key's median, or `floorMs`, whichever is more. Defaults 0.05 (5 %) and
   * 0.01 ms (a refusal's own error and given-back hit, some µs, where a call takes 15 µs in memory).
   */
  bound?: { ratio?: number; floorMs?: number };
  /** The same over HTTP, where a busy machine's noise is larger. Default ratio 0.35, floor 0.15 ms. */
  httpBound?: { ratio?: number; floorMs?: number };
}

const KINDS = ["valid", "unknown", "wrong secret"] as const;
type Kind = (typeof KINDS)[number];

/** An auth with API keys on (no request limit in the way), its server, and a key made through the routes. */
async function setUp(options: ApiKeyTimingSuiteOptions) {
  const auth = await timedAuth(
    "api-key-timing-secret-Vb7nM2qW9eR4tY6uI1oP3aS5dF8gH0jK",
    await options.createStores(SYSTEM_CLOCK),
    { apiKeys: { requestsPerMinute: 1_000_000 } },
  );
  const server = await options.start(auth);
  onTestFinished(async () => {
    await auth.idle();
    await server.close();
  });
  const http = createHttpClient(server.baseUrl);
  const email = "timing@example.test";
  const { key } = await registerWithKey(http, email, "Timed");
  // Well-formed keys with a right checksum: another lookup id (no record), and the key's own
  // lookup id with another secret (a record whose hash does not match).
  const keys: Record<Kind, string> = {
    valid: key,
    unknown: rewritten(key, 2),
    "wrong secret": rewritten(key, 40),
  };
  return { auth, http, keys };
}

/** One request of some kind; resolves to whether it was let in. */
type Send = (key: string) => Promise<boolean>;

const inProcess =
  (auth: Auth): Send =>
  (key) =>
    auth.authenticate({ token: key }).then(
      () => true,
      () => false,
    );

const overHttp =
  (http: HttpClient): Send =>
  async (key) =>
    (await http.call("GET", "/host/protected", { headers: { "x-api-key": key } })).status === 200;

/**
 * `rounds` rounds of one request of each kind (after `warmUp` unkept ones), the kinds' order turned
 * every round so that no kind always runs first or last; background work (the refund of a refused
 * key's hit, `lastUsedAt`) is waited for outside the timed span. Each kind's times in ms.
 */
async function timeKinds(auth: Auth, send: Send, keys: Record<Kind, string>, warmUp: number, rounds: number) {
  const times: Record<Kind, number[]> = { valid: [], unknown: [], "wrong secret": [] };
  for (let round = 0; round < warmUp + rounds; round++) {
    for (let step = 0; step < KINDS.length; step++) {
      const kind = KINDS[(round + step) % KINDS.length] as Kind;
      const started = performance.now();
      const allowed = await send(keys[kind]);
      const ms = performance.now() - started;
      await auth.idle();
      expect(allowed, kind).toBe(kind === "valid");
      if (round >= warmUp) times[kind].push(ms);
    }
  }
  return times;
}

/**
 * An unknown key, a known key's id with a wrong secret, and a valid key take the same time
 * (docs/security.md): many interleaved calls of each kind, the figures printed. Held
 * to 5 % in process (`auth.authenticate`, what the guards call: the core's and the store's own
 * work, without the network's noise), and to a looser bound over HTTP against a requireAuth route,
 * where a 2-core machine under a parallel suite moves the figures by more than 5 % from run to run
 * (a skipped store read would still show: it is a round trip).
 */
export function runApiKeyTimingSuite(options: ApiKeyTimingSuiteOptions): void {
  const rounds = options.rounds ?? 600;
  const warmUp = Math.max(20, Math.floor(rounds / 5));

  /**
   * Prints each kind's median and the medians of the rounds' differences and ratios to the valid
   * key (each round's calls ran back to back, under the same load: steadier on a busy machine
   * than the medians alone), then holds the differences to `bound`.
   */
  const check = (how: string, times: Record<Kind, number[]>, bound: { ratio: number; floorMs: number }) => {
    const p50 = Object.fromEntries(KINDS.map((kind) => [kind, median(times[kind])])) as Record<Kind, number>;
    const paired = (kind: Kind, combine: (a: number, b: number) => number) =>
      median(times[kind].map((ms, round) => combine(ms, times.valid[round] as number)));
    const lines = (["unknown", "wrong secret"] as const).map((kind) => ({
      kind,
      difference: paired(kind, (a, b) => a - b),
      ratio: paired(kind, (a, b) => a / b),
    }));
    console.log(
      `api key timing (${options.name}, ${how}, ${rounds} rounds): p50 valid ${p50.valid.toFixed(4)} ms, ` +
        `unknown ${p50.unknown.toFixed(4)} ms, wrong secret ${p50["wrong secret"].toFixed(4)} ms; ` +
        lines
          .map(
            ({ kind, difference, ratio }) =>
              `${kind}/valid: p50 ratio ${(p50[kind] / p50.valid).toFixed(3)}, ` +
              `per-round ratio ${ratio.toFixed(3)}, per-round difference ${difference.toFixed(4)} ms`,
          )
          .join("; "),
    );
    const allowed = Math.max(bound.floorMs, bound.ratio * p50.valid);
    for (const { kind, difference } of lines)
      expect(Math.abs(difference), `${kind} against valid, ${how}`).toBeLessThanOrEqual(allowed);
  };

  describe(`api key timing: ${options.name}`, () => {
    it("authenticate - in process, an unknown key, a wrong secret and a valid key take the same time (within 5 % or 0.01 ms)", async () => {
      const { auth, keys } = await setUp(options);
      check("in process", await timeKinds(auth, inProcess(auth), keys, warmUp, rounds), {
        ratio: options.bound?.ratio ?? 0.05,
        floorMs: options.bound?.floorMs ?? 0.01,
      });
    }, 120_000);

    it("requireAuth - over HTTP, an unknown key, a wrong secret and a valid key take the same time", async () => {
      const { auth, http, keys } = await setUp(options);
      check("over HTTP", await timeKinds(auth, overHttp(http), keys, warmUp, rounds), {
        ratio: options.httpBound?.ratio ?? 0.35,
        floorMs: options.httpBound?.floorMs ?? 0.15,
      });
    }, 120_000);
  });
}
