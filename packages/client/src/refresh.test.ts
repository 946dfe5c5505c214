// Refresh against a scripted fetch: one refresh for many refused calls, one sign-out for a refused
// refresh, and one refresh across two "tabs" sharing a lock and a channel.
import { describe, expect, it, vi } from "vitest";
import { createAuthClient, type PortcullisError } from "./index.js";
import type { ChannelLike } from "./refresh.js";
import { fakeBrowser } from "./test-browser.js";

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
const refused = (code: string) => json(401, { status: 401, code, message: `refused: ${code}` });
const USER = { id: "u1", email: "ada@example.com" };

/** A server whose access token is `valid` (a cookie stand-in): /me refuses any other, /refresh renews it. */
function scriptedServer(options: { refreshOk: boolean; refreshDelayMs?: number }) {
  const state = { valid: "new", presented: "old", refreshes: 0, meCalls: 0, refreshOk: options.refreshOk };
  const fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(String(input));
    if (url.pathname.endsWith("/refresh")) {
      state.refreshes += 1;
      await new Promise((resolve) => setTimeout(resolve, options.refreshDelayMs ?? 5));
      if (!state.refreshOk) return refused("REFRESH_TOKEN_INVALID");
      state.presented = state.valid;
      return json(200, { user: USER, accessToken: null, refreshToken: null });
    }
    if (url.pathname.endsWith("/me")) {
      state.meCalls += 1;
      expect(init?.credentials).toBe("include");
      return state.presented === state.valid ? json(200, USER) : refused("ACCESS_TOKEN_EXPIRED");
    }
    return json(404, { status: 404, code: "NOT_FOUND", message: "no" });
  };
  return { state, fetch: fetch as typeof globalThis.fetch };
}

const noTabs = { locks: null, channel: null } as const;

describe("refresh", () => {
  it("single-flight - 10 concurrent calls refused with ACCESS_TOKEN_EXPIRED make one POST /refresh, then all succeed", async () => {
    const server = scriptedServer({ refreshOk: true });
    const client = createAuthClient({ baseUrl: "http://api.test/auth", fetch: server.fetch, ...noTabs });
    const answers = await Promise.all(Array.from({ length: 10 }, () => client.me()));
    expect(answers).toEqual(Array.from({ length: 10 }, () => USER));
    expect(server.state.refreshes).toBe(1);
    expect(server.state.meCalls).toBe(20);
    expect(client.state).toBe("signed-in");
  });

  it("failure - a refused refresh signs out once and rejects every waiting call with its code", async () => {
    const server = scriptedServer({ refreshOk: false });
    const client = createAuthClient({ baseUrl: "http://api.test/auth", fetch: server.fetch, ...noTabs });
    const signedOut: unknown[] = [];
    client.on("signedOut", (event) => signedOut.push(event));
    const results = await Promise.allSettled(Array.from({ length: 10 }, () => client.me()));
    expect(results.map((r) => r.status)).toEqual(Array.from({ length: 10 }, () => "rejected"));
    const codes = results.map((r) => (r as PromiseRejectedResult).reason as PortcullisError);
    expect(new Set(codes.map((e) => e.code))).toEqual(new Set(["REFRESH_TOKEN_INVALID"]));
    expect(codes[0]?.message).toBe("refused: REFRESH_TOKEN_INVALID");
    expect(server.state.refreshes).toBe(1);
    expect(signedOut).toEqual([{ reason: "session-ended", code: "REFRESH_TOKEN_INVALID" }]);
    // Signed out: the next call is refused without another refresh.
    await expect(client.me()).rejects.toMatchObject({ code: "ACCESS_TOKEN_EXPIRED", status: 401 });
    expect(server.state.refreshes).toBe(1);
  });

  it("sessionEnded - a signed-in session refused, whose refresh is refused too, ends once", async () => {
    const server = scriptedServer({ refreshOk: true });
    const client = createAuthClient({ baseUrl: "http://api.test/auth", fetch: server.fetch, ...noTabs });
    expect(await client.me()).toEqual(USER);
    const events: string[] = [];
    client.on("sessionEnded", (e) => events.push(`ended ${e.code}`));
    client.on("signedOut", (e) => events.push(`out ${e.reason} ${e.code}`));
    // Revoked elsewhere: the access token is refused and so is the refresh token.
    server.state.valid = "revoked";
    server.state.refreshOk = false;
    const results = await Promise.allSettled([client.me(), client.me(), client.me()]);
    expect(results.every((r) => r.status === "rejected")).toBe(true);
    expect(events).toEqual(["ended REFRESH_TOKEN_INVALID", "out session-ended REFRESH_TOKEN_INVALID"]);
    expect(client.state).toBe("signed-out");
  });

  it("across tabs - two clients sharing a lock and a channel refresh once; the waiting tab takes the outcome", async () => {
    const server = scriptedServer({ refreshOk: true, refreshDelayMs: 20 });
    const { locks, channels } = fakeBrowser(2);
    const tab = (channel: ChannelLike) =>
      createAuthClient({ baseUrl: "http://api.test/auth", fetch: server.fetch, locks, channel });
    const [a, b] = [tab(channels[0] as ChannelLike), tab(channels[1] as ChannelLike)];
    await Promise.all([a.refresh(), b.refresh()]);
    expect(server.state.refreshes).toBe(1);
    expect(locks.requests).toBe(2);
  });

  it("across tabs - the message arrives after the lock could pass on: the refreshing tab holds the lock past its refresh, so the other takes its outcome", async () => {
    const server = scriptedServer({ refreshOk: true, refreshDelayMs: 20 });
    // Each message 40 ms late, as between a busy browser's tabs; the lock's handover is 250 ms.
    const { locks, channels } = fakeBrowser(2, 40);
    const [a, b] = channels.map((channel) =>
      createAuthClient({ baseUrl: "http://api.test/auth", fetch: server.fetch, locks, channel }),
    );
    await Promise.all([a?.refresh(), b?.refresh()]);
    expect(server.state.refreshes).toBe(1);
  });

  it("across tabs - the refreshing tab's own callers do not wait for the handover", async () => {
    const server = scriptedServer({ refreshOk: true });
    const { locks, channels } = fakeBrowser(2);
    const a = createAuthClient({
      baseUrl: "http://api.test/auth",
      fetch: server.fetch,
      locks,
      channel: channels[0] as ChannelLike,
    });
    await a.refresh();
    expect(server.state.refreshes).toBe(1);
    // Answered while the lock is still held for the other tabs.
    expect(locks.held).toBe(true);
  });

  it("across tabs - a retry refused because another tab refreshed meanwhile is sent once more with that tab's token, and nobody is signed out", async () => {
    const { locks, channels } = fakeBrowser(2);
    const [own, other] = channels as [ChannelLike, ChannelLike];
    let meCalls = 0;
    let refreshes = 0;
    const fetch = (async (input: string | URL | Request) => {
      const url = new URL(String(input));
      if (url.pathname.endsWith("/refresh")) {
        refreshes += 1;
        return json(200, { user: USER, accessToken: null, refreshToken: null });
      }
      meCalls += 1;
      // 1: the expired token. 2: the retry, whose token the other tab's refresh revoked meanwhile.
      if (meCalls === 1) return refused("ACCESS_TOKEN_EXPIRED");
      if (meCalls === 2) {
        other.postMessage({ type: "portcullis:refreshed" });
        await new Promise((resolve) => setTimeout(resolve, 5));
        return refused("ACCESS_TOKEN_INVALID");
      }
      return json(200, USER);
    }) as typeof globalThis.fetch;
    const client = createAuthClient({ baseUrl: "http://api.test/auth", fetch, locks, channel: own });
    const events: string[] = [];
    client.on("signedOut", (event) => events.push(event.reason));
    expect(await client.me()).toEqual(USER);
    expect(meCalls).toBe(3);
    expect(refreshes).toBe(1);
    expect(events).toEqual([]);
  });

  it("defaults - the platform's BroadcastChannel, unreferenced (in Node it would keep the process alive)", () => {
    const made: { name: string; unrefs: number }[] = [];
    class FakeChannel {
      record: { name: string; unrefs: number };
      constructor(name: string) {
        this.record = { name, unrefs: 0 };
        made.push(this.record);
      }
      postMessage() {}
      addEventListener() {}
      unref() {
        this.record.unrefs += 1;
      }
    }
    vi.stubGlobal("BroadcastChannel", FakeChannel);
    try {
      createAuthClient({ baseUrl: "http://api.test/auth", locks: null });
      expect(made).toEqual([{ name: "portcullis-auth", unrefs: 1 }]);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it("across tabs - a refused refresh in one tab signs the other out too", async () => {
    const server = scriptedServer({ refreshOk: false });
    const { locks, channels } = fakeBrowser(2);
    const [a, b] = channels.map((channel) =>
      createAuthClient({ baseUrl: "http://api.test/auth", fetch: server.fetch, locks, channel }),
    );
    const seen: string[] = [];
    b?.on("signedOut", (e) => seen.push(e.reason));
    await expect(a?.me()).rejects.toMatchObject({ code: "REFRESH_TOKEN_INVALID" });
    expect(seen).toEqual(["other-tab"]);
    expect(server.state.refreshes).toBe(1);
  });
});
