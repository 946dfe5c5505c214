import { PortcullisError } from "./errors.js";

/** The part of the Web Locks API the client uses (`navigator.locks`). */
export interface LockManagerLike {
  request<T>(name: string, callback: () => Promise<T>): Promise<T>;
}

/** The part of `BroadcastChannel` the client uses. */
export interface ChannelLike {
  postMessage(message: unknown): void;
  addEventListener(type: "message", listener: (event: { data: unknown }) => void): void;
}

/** What one tab tells the others: a refresh's new tokens (header mode) or a sign-out. */
export type SharedMessage =
  | { type: "portcullis:refreshed"; tokens?: unknown; accessTokenExpiresAt?: string | undefined }
  | { type: "portcullis:signed-out"; code: string; message: string; accessTokenExpiresAt?: undefined }
  | { type: "portcullis:signed-in"; accessTokenExpiresAt?: string | undefined };

const MESSAGE_TYPES = new Set(["portcullis:refreshed", "portcullis:signed-out", "portcullis:signed-in"]);

export interface RefresherDeps {
  /** Refreshes (`POST /refresh`) and returns what the other tabs need: the expiry, the tokens in header mode. */
  refresh(): Promise<{ tokens?: unknown; accessTokenExpiresAt?: string | undefined }>;
  locks: LockManagerLike | undefined;
  channel: ChannelLike | undefined;
  lockName: string;
  /** Another tab's message. */
  onShared(message: SharedMessage): void;
  /** How long the lock is held after this tab's own refresh (default `HANDOVER_MS`). */
  handoverMs?: number;
}

/** The default of `RefresherDeps.handoverMs`: ample for a message between tabs of a busy browser. */
export const HANDOVER_MS = 250;

/** Resolves after `ms` without keeping a Node process alive. */
const pause = (ms: number) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms) as { unref?: () => void };
    timer.unref?.();
  });

/**
 * One refresh at a time: in the tab (callers during a refresh share it) and across the tabs
 * (under a Web Lock; a tab that waited for the lock while another refreshed takes that outcome,
 * shared over the channel, instead of refreshing again with a rotated token).
 */
export function createRefresher(deps: RefresherDeps) {
  let inflight: Promise<void> | undefined;
  /** Counts the outcomes seen: this tab's refreshes and other tabs' messages. */
  let generation = 0;
  let last: SharedMessage | undefined;

  deps.channel?.addEventListener("message", (event) => {
    const data = event.data as SharedMessage | undefined;
    if (!data || !MESSAGE_TYPES.has(data.type)) return;
    if (data.type !== "portcullis:signed-in") {
      generation += 1;
      last = data;
    }
    deps.onShared(data);
  });

  const post = (message: SharedMessage) => deps.channel?.postMessage(message);

  /** Refreshes unless another tab's outcome came since `asked`; true when this tab refreshed. */
  const refreshUnderLock = async (asked: number) => {
    if (generation !== asked && last) {
      // Another tab finished a refresh (or signed out) while this one waited.
      if (last.type === "portcullis:signed-out")
        throw new PortcullisError(last.code as PortcullisError["code"], last.message, { status: 401 });
      return false;
    }
    const outcome = await deps.refresh();
    generation += 1;
    post({ type: "portcullis:refreshed", ...outcome });
    return true;
  };

  /**
   * Under the Web Lock. The lock is held `handoverMs` past this tab's own refresh: the channel's
   * message and the lock's grant reach a waiting tab on separate paths, and a tab granted the lock
   * before the message came would refresh again with the rotated token, revoking the access token
   * this tab just got (its calls in flight then fail). This tab's callers do not wait for it.
   */
  const locked = (locks: LockManagerLike, asked: number) =>
    new Promise<void>((resolve, reject) => {
      locks
        .request(deps.lockName, async () => {
          const refreshed = refreshUnderLock(asked);
          refreshed.then(() => resolve(), reject);
          if (await refreshed.catch(() => false)) await pause(deps.handoverMs ?? HANDOVER_MS);
        })
        .catch(reject);
    });

  return {
    /** The number of outcomes seen so far: a call compares it to know whether a refresh came since it was sent. */
    get generation() {
      return generation;
    },
    refresh(): Promise<void> {
      if (inflight) return inflight;
      const asked = generation;
      const run = deps.locks ? locked(deps.locks, asked) : refreshUnderLock(asked).then(() => undefined);
      inflight = run.finally(() => {
        inflight = undefined;
      });
      return inflight;
    },
    /**
     * Tells the other tabs this one signed out (they sign out too), in, or took a new access token
     * other than by refreshing (an organization's activation: counted as a refresh's outcome).
     */
    share(message: SharedMessage) {
      if (message.type !== "portcullis:signed-in") generation += 1;
      if (message.type === "portcullis:signed-out") last = message;
      post(message);
    },
  };
}
