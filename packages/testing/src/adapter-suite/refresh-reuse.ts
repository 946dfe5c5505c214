import { expect } from "vitest";
import {
  type App,
  type AppTests,
  cookieValue,
  expectError,
  expectTokensRefused,
  type SignedIn,
} from "./fixture.js";

/**
 * The refresh reuse interval of the replay test (`refreshReuseIntervalSeconds`: 2), in
 * milliseconds: short, since on stores with their own clock (`storeNow`) passing it is a real wait.
 */
const INTERVAL_MS = 2_000;

/**
 * POST /refresh with `refreshToken` as a bearer, not recorded (concurrent calls would record in
 * no fixed order): the status, the body's tokens and the refresh cookie.
 */
async function refreshUnrecorded(app: App, refreshToken: string) {
  const reply = await fetch(`${app.server.baseUrl}/api/auth/refresh`, {
    method: "POST",
    headers: { authorization: `Bearer ${refreshToken}` },
  });
  const body = (await reply.json()) as { accessToken?: string; refreshToken?: string };
  return { status: reply.status, body, cookie: cookieValue(reply.headers.getSetCookie(), "refresh_token") };
}

/** Refreshes `signedIn` once (recorded): the new tokens. */
async function refreshOnce(app: App, signedIn: SignedIn) {
  const refreshed = await app.call("refresh", "POST", "/api/auth/refresh", { bearer: signedIn.refreshToken });
  expect(refreshed.status).toBe(200);
  return {
    accessToken: String(refreshed.body.accessToken),
    refreshToken: String(refreshed.body.refreshToken),
  };
}

/** The refresh reuse interval: concurrent refreshes with one token, and replays after it. */
export const refreshReuseTests: AppTests = {
  "refresh - 20 concurrent refreshes with one token: all 200 with one new refresh token, every access token works":
    async (boot) => {
      const app = await boot();
      const signedIn = await app.signUp("two-tabs@example.test");
      const replies = await Promise.all(
        Array.from({ length: 20 }, () => refreshUnrecorded(app, signedIn.refreshToken)),
      );
      expect(replies.map((reply) => reply.status)).toEqual(Array(20).fill(200));
      const successors = new Set(replies.flatMap((reply) => [reply.body.refreshToken, reply.cookie]));
      expect(successors.size).toBe(1);
      const [successor] = successors;
      expect(successor).not.toBe(signedIn.refreshToken);
      for (const reply of replies) {
        const me = await fetch(`${app.server.baseUrl}/api/auth/me`, {
          headers: { authorization: `Bearer ${reply.body.accessToken}` },
        });
        expect(me.status).toBe(200);
      }
      const next = await app.call("refresh the successor", "POST", "/api/auth/refresh", {
        bearer: String(successor),
      });
      expect(next.status).toBe(200);
      expect(
        (await app.call("me", "GET", "/api/auth/me", { bearer: String(next.body.accessToken) })).status,
      ).toBe(200);
    },

  "refresh - the replaced token answers the current tokens within the interval; after it, it revokes the session":
    async (boot) => {
      const app = await boot({ refreshReuseIntervalSeconds: INTERVAL_MS / 1000 });
      const signedIn = await app.signUp("replay@example.test");
      const current = await refreshOnce(app, signedIn);
      await app.elapse(INTERVAL_MS - 1_000);
      const within = await app.call("refresh the parent within the interval", "POST", "/api/auth/refresh", {
        bearer: signedIn.refreshToken,
      });
      expect(within.status).toBe(200);
      expect(within.body.refreshToken).toBe(current.refreshToken);
      expect(
        (await app.call("me", "GET", "/api/auth/me", { bearer: String(within.body.accessToken) })).status,
      ).toBe(200);
      await app.elapse(1_001);
      await expectReplayRevokes(app, "refresh the parent after the interval", signedIn.refreshToken, current);
    },

  "refresh - a token two rotations back revokes the session at once": async (boot) => {
    const app = await boot();
    const signedIn = await app.signUp("grandparent@example.test");
    const first = await refreshOnce(app, signedIn);
    const second = await refreshOnce(app, { ...signedIn, ...first });
    await expectReplayRevokes(app, "refresh the grandparent", signedIn.refreshToken, second);
  },
};

/**
 * Presenting `replayed` (recorded as `label`) is 401 `REFRESH_TOKEN_INVALID` and ends the session:
 * its latest tokens are refused, the access token at /me, the refresh token at /refresh.
 */
async function expectReplayRevokes(
  app: App,
  label: string,
  replayed: string,
  latest: { accessToken: string; refreshToken: string },
) {
  expectError(
    await app.call(label, "POST", "/api/auth/refresh", { bearer: replayed }),
    401,
    "REFRESH_TOKEN_INVALID",
  );
  await expectTokensRefused(
    app,
    ["me after reuse", "refresh after reuse"],
    latest.accessToken,
    latest.refreshToken,
  );
}
