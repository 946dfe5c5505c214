import { createMemoryStores } from "@portcullis/store-memory";
import { createFakeClock } from "@portcullis/testing";
import { describe, expect, it } from "vitest";
import { createAuth } from "../create-auth.js";
import { createArgon2Hasher } from "../hashing/argon2-hasher.js";
import { silentLogger } from "../ports/logger.js";

const PASSWORD = "correct horse battery staple";

/** The verified-token cache must never outlive revocation: every case below uses a token already cached. */
async function signedIn() {
  const clock = createFakeClock({ start: Date.UTC(2026, 0, 1) });
  const auth = createAuth({
    secret: "authenticate-test-secret-2X5nFNa1GlKAhRjcflxpS5ny38t8VhkZEkHLBYziZbE",
    stores: createMemoryStores({ clock, sweepIntervalMs: 0 }),
    clock,
    logger: silentLogger,
    passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
    email: { enabled: false },
  });
  await auth.register({}, { email: "ada@example.test", password: PASSWORD });
  const login = await auth.login({}, { email: "ada@example.test", password: PASSWORD });
  if (login.twoFactorRequired) throw new Error("second factor required");
  const principal = await auth.authenticate({ token: login.accessToken });
  expect(await auth.authenticate({ token: login.accessToken })).toEqual(principal); // now cached
  const code = (token: string) =>
    auth.authenticate({ token }).then(
      () => "OK",
      (error: { code?: string }) => error.code,
    );
  return { auth, clock, login, principal, code };
}

describe("authenticate", () => {
  it("authenticate - logout revokes a cached access token at once", async () => {
    const { auth, login, code } = await signedIn();
    await auth.logout({}, { accessToken: login.accessToken });
    expect(await code(login.accessToken)).toBe("ACCESS_TOKEN_INVALID");
  });

  it("authenticate - revoking every session revokes a cached access token at once", async () => {
    const { auth, principal, login, code } = await signedIn();
    await auth.sessions.revokeAll({ principal });
    expect(await code(login.accessToken)).toBe("ACCESS_TOKEN_INVALID");
  });

  it("authenticate - refresh rotation retires the cached access token; the new one works", async () => {
    const { auth, login, code } = await signedIn();
    const rotated = await auth.refresh({ token: login.refreshToken });
    expect(await code(login.accessToken)).toBe("ACCESS_TOKEN_INVALID");
    expect(await code(rotated.accessToken)).toBe("OK");
  });

  it("authenticate - a cached access token expires at its exp (fake clock)", async () => {
    const { auth, clock, login, code } = await signedIn();
    clock.advance((auth.options.accessTokenTtlSeconds + 10) * 1000);
    expect(await code(login.accessToken)).toBe("ACCESS_TOKEN_EXPIRED");
  });
});
