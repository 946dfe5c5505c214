import type { ChannelLike, LockManagerLike } from "./refresh.js";

// Test support (not built into the package): the browser's tab coordination, in memory.

/** A Web Locks stand-in (one holder at a time, in order) and `n` connected channels. */
export function fakeBrowser(n: number) {
  let tail: Promise<unknown> = Promise.resolve();
  const locks: LockManagerLike & { requests: number } = {
    requests: 0,
    request(_name, callback) {
      locks.requests += 1;
      const run = tail.then(() => callback());
      tail = run.catch(() => undefined);
      return run;
    },
  };
  const listeners: ((event: { data: unknown }) => void)[][] = Array.from({ length: n }, () => []);
  const channels: ChannelLike[] = listeners.map((own, index) => ({
    postMessage(message) {
      // Like BroadcastChannel: every other channel of the name gets it, asynchronously.
      for (const [other, list] of listeners.entries())
        if (other !== index) for (const listener of list) queueMicrotask(() => listener({ data: message }));
    },
    addEventListener(_type, listener) {
      own.push(listener);
    },
  }));
  return { locks, channels };
}
