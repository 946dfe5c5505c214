import { performance } from "node:perf_hooks";
import type { Auth } from "@portcullis/core";
import { describe, expect, it, onTestFinished } from "vitest";
import { median, SYSTEM_CLOCK, type TimingSuiteOptions, timedAuth } from "./timing.js";

/** The options of `runRequestTimingSuite`. */
export interface RequestTimingSuiteOptions extends TimingSuiteOptions {
  /** Measured calls per case (after a warm-up of a fifth as many). Default 100. */
  rounds?: number;
  /**
   * How far apart the two may be: the median of the rounds' differences at most `ratio` of the
   * smaller median, or `floorMs`, whichever is more. Defaults: 0.35 and 0.15 ms.
   */
  bound?: { ratio?: number; floorMs?: number };
}

const PASSWORD = "correct horse battery staple";

type Request = (auth: Auth, email: string) => Promise<unknown>;

/** Medians in ms: of the known addresses' calls, of the unknown ones', of the rounds' differences. */
interface Medians {
  known: number;
  unknown: number;
  difference: number;
}

/** `stores` whose method calls are listed in `recording.calls` while `recording.on`. */
function recorded<S extends object>(stores: S, recording: Recording): S {
  const wrap = (name: string, store: object) =>
    new Proxy(store, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          if (recording.on) recording.calls.push(`${name}.${String(property)}`);
          return value.apply(target, args);
        };
      },
    });
  return Object.fromEntries(
    Object.entries(stores).map(([name, store]) => [
      name,
      store !== null && typeof store === "object" ? wrap(name, store) : store,
    ]),
  ) as S;
}

/** Which store methods were called (`users.findByEmail`…) while `on`. */
interface Recording {
  on: boolean;
  calls: string[];
}

/**
 * An auth with email, email sign-in and passkeys on, and `count` accounts `known<i>@example.test`;
 * `recording.calls` lists the store methods called while `recording.on`.
 */
async function setUp(createStores: RequestTimingSuiteOptions["createStores"], count: number) {
  const recording: Recording = { on: false, calls: [] };
  const stores = recorded(await createStores(SYSTEM_CLOCK), recording);
  const auth = await timedAuth("request-timing-secret-Xk2pQ9vLr7sT3wYz8bN4mC6hJ1dF5gA0eR", stores, {
    emailSignIn: { enabled: true },
    webauthn: {},
  });
  onTestFinished(() => auth.idle());
  for (let index = 0; index < count; index++)
    await auth.host.createUser({}, { email: `known${index}@example.test`, password: PASSWORD });
  return { auth, recording };
}

/** The store calls `request` makes for `email`, background work included. */
async function storeCallsOf(auth: Auth, recording: Recording, request: Request, email: string) {
  recording.calls = [];
  recording.on = true;
  await request(auth, email);
  recording.on = false;
  await auth.idle();
  return recording.calls;
}

/** How long `request` takes for `email`, in ms; what it leaves to the background waited for after. */
async function timed(auth: Auth, request: Request, email: string): Promise<number> {
  const started = performance.now();
  await request(auth, email);
  const ms = performance.now() - started;
  // What a call leaves to the background must not land in the next call's time.
  await auth.idle();
  return ms;
}

/**
 * `total` rounds of one known and one unknown address each (`known<i>`, `unknown<i>`), the first
 * `warmUp` not kept: the times of each side, round by round.
 */
async function timeRounds(auth: Auth, request: Request, warmUp: number, total: number) {
  const known: number[] = [];
  const unknown: number[] = [];
  for (let index = 0; index < total; index++) {
    const pair = [`known${index}@example.test`, `unknown${index}@example.test`] as const;
    // Alternate which goes first, so neither always runs on a warmer cache.
    const order = index % 2 === 0 ? pair : ([pair[1], pair[0]] as const);
    const first = await timed(auth, request, order[0]);
    const second = await timed(auth, request, order[1]);
    if (index < warmUp) continue;
    const [knownMs, unknownMs] = index % 2 === 0 ? [first, second] : [second, first];
    known.push(knownMs);
    unknown.push(unknownMs);
  }
  return { known, unknown };
}

/**
 * The anonymous routes that take an address answer a known and an unknown one after the same
 * work, in the same time (docs/security.md, A2): the same store calls before the answer, and
 * many interleaved calls per case (each address once, so no cooldown answers) whose medians are
 * within the bound. In process, through the auth's
 * own methods, so the network's noise does not hide a store round trip.
 */
export function runRequestTimingSuite(options: RequestTimingSuiteOptions): void {
  const rounds = options.rounds ?? 100;
  const warmUp = Math.max(5, Math.floor(rounds / 5));
  const ratio = options.bound?.ratio ?? 0.35;
  const floorMs = options.bound?.floorMs ?? 0.15;

  /**
   * Checks that a known and an unknown address make the same store calls before the answer, then
   * times `request` for both, interleaved in rounds of one each.
   */
  async function measure(request: Request): Promise<Medians> {
    const total = warmUp + rounds;
    const { auth, recording } = await setUp(options.createStores, total + 1);
    expect(await storeCallsOf(auth, recording, request, "unknown-first@example.test")).toEqual(
      await storeCallsOf(auth, recording, request, `known${total}@example.test`),
    );
    const { known, unknown } = await timeRounds(auth, request, warmUp, total);
    await auth.idle();
    const differences = known.map((ms, index) => ms - (unknown[index] as number));
    return { known: median(known), unknown: median(unknown), difference: median(differences) };
  }

  // The median of the rounds' differences (each round's two calls ran back to back, under the same
  // load): robust against a busy machine, where the two medians alone drift apart.
  const expectAlike = ({ known, unknown, difference }: Medians) => {
    const allowed = Math.max(floorMs, ratio * Math.min(known, unknown));
    expect(
      Math.abs(difference),
      `median known ${known.toFixed(3)} ms, unknown ${unknown.toFixed(3)} ms, difference ${difference.toFixed(3)} ms`,
    ).toBeLessThanOrEqual(allowed);
  };

  describe(`request timing: ${options.name}`, () => {
    it("requestPasswordReset - known and unknown addresses take the same time (medians of interleaved calls)", async () => {
      expectAlike(await measure((auth, email) => auth.requestPasswordReset({}, { email })));
    });

    it("requestEmailSignIn - known and unknown addresses take the same time (medians of interleaved calls)", async () => {
      expectAlike(await measure((auth, email) => auth.requestEmailSignIn({}, { email })));
    });

    it("passkeys.signInOptions - an address without passkeys and an unknown one take the same time (medians of interleaved calls)", async () => {
      expectAlike(await measure((auth, email) => auth.passkeys.signInOptions({}, { email })));
    });
  });
}
