import type { ChannelLike, LockManagerLike } from "./refresh.js";

// Test support (not built into the package): the browser's tab coordination, in memory.

/**
 * A Web Locks stand-in (one holder at a time, in order) and `n` connected channels, whose messages
 * arrive `deliveryMs` after they are posted (0: in a microtask), as a busy browser's may.
 */
export function fakeBrowser(n: number, deliveryMs = 0) {
  let tail: Promise<unknown> = Promise.resolve();
  const locks: LockManagerLike & { requests: number; held: boolean } = {
    requests: 0,
    held: false,
    request(_name, callback) {
      locks.requests += 1;
      const run = tail.then(async () => {
        locks.held = true;
        try {
          return await callback();
        } finally {
          locks.held = false;
        }
      });
      tail = run.catch(() => undefined);
      return run;
    },
  };
  const listeners: ((event: { data: unknown }) => void)[][] = Array.from({ length: n }, () => []);
  const channels: ChannelLike[] = listeners.map((own, index) => ({
    postMessage(message) {
      // Like BroadcastChannel: every other channel of the name gets it, asynchronously.
      for (const [other, list] of listeners.entries())
        if (other !== index)
          for (const listener of list) {
            const deliver = () => listener({ data: message });
            if (deliveryMs > 0) setTimeout(deliver, deliveryMs);
            else queueMicrotask(deliver);
          }
    },
    addEventListener(_type, listener) {
      own.push(listener);
    },
  }));
  return { locks, channels };
}
