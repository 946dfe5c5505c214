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
}

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

  const refreshUnderLock = async (asked: number) => {
    if (generation !== asked && last) {
      // Another tab finished a refresh (or signed out) while this one waited.
      if (last.type === "portcullis:signed-out")
        throw new PortcullisError(last.code as PortcullisError["code"], last.message, { status: 401 });
      return;
    }
    const outcome = await deps.refresh();
    generation += 1;
    post({ type: "portcullis:refreshed", ...outcome });
  };

  return {
    /** The number of outcomes seen so far: a call compares it to know whether a refresh came since it was sent. */
    get generation() {
      return generation;
    },
    refresh(): Promise<void> {
      if (inflight) return inflight;
      const asked = generation;
      const run = () => refreshUnderLock(asked);
      inflight = (deps.locks ? deps.locks.request(deps.lockName, run) : run()).finally(() => {
        inflight = undefined;
      });
      return inflight;
    },
    /** Tells the other tabs this one signed out (they sign out too) or in. */
    share(message: SharedMessage) {
      if (message.type === "portcullis:signed-out") {
        generation += 1;
        last = message;
      }
      post(message);
    },
  };
}
