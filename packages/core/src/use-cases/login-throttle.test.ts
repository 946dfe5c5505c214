import { createMemoryStores } from "@portcullis/store-memory";
import { describe, expect, it } from "vitest";
import { createAuth } from "../create-auth.js";
import { createArgon2Hasher } from "../hashing/argon2-hasher.js";
import { silentLogger } from "../ports/logger.js";
import type { PasswordHasher } from "../ports/password-hasher.js";

const PASSWORD = "correct horse battery staple";

function setup(sent: unknown[] = []) {
  let now = Date.UTC(2026, 0, 1);
  const clock = {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
  };
  const base = createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 });
  let verifies = 0;
  const hasher: PasswordHasher = {
    hash: (p) => base.hash(p),
    verify: (h, p) => {
      verifies += 1;
      return base.verify(h, p);
    },
    needsRehash: (h) => base.needsRehash(h),
  };
  const auth = createAuth({
    secret: "k".repeat(48),
    stores: createMemoryStores({ clock, sweepIntervalMs: 0 }),
    clock,
    passwordHasher: hasher,
    logger: silentLogger,
    appOrigin: "https://app.example.test",
    mailer: { send: async (message) => void sent.push(message) },
    email: { loginAlerts: false },
  });
  return { auth, clock, verifies: () => verifies };
}

const attempt = (auth: ReturnType<typeof setup>["auth"], email: string, password = "wrong password!!") =>
  auth.login({ email, password }).then(
    () => "OK",
    (error) => (error.code === "LOGIN_THROTTLED" ? `THROTTLED ${error.remainingSeconds}` : error.code),
  );

describe("login throttling", () => {
  it("login - 5 free failures, then a lock that doubles; checked before argon2; the right password waits too", async () => {
    const { auth, clock, verifies } = setup();
    await auth.register({ email: "ada@example.test", password: PASSWORD });
    for (let i = 0; i < 5; i++) expect(await attempt(auth, "ada@example.test")).toBe("INVALID_CREDENTIALS");
    expect(await attempt(auth, "ada@example.test")).toBe("INVALID_CREDENTIALS");
    const before = verifies();
    expect(await attempt(auth, "Ada@Example.test ", PASSWORD)).toBe("THROTTLED 30");
    expect(verifies()).toBe(before);
    clock.advance(30_000);
    expect(await attempt(auth, "ada@example.test")).toBe("INVALID_CREDENTIALS");
    expect(await attempt(auth, "ada@example.test")).toBe("THROTTLED 60");
    clock.advance(60_000);
    expect(await attempt(auth, "ada@example.test", PASSWORD)).toBe("OK");
    expect(await attempt(auth, "ada@example.test")).toBe("INVALID_CREDENTIALS");
  });

  it("login - unknown addresses are throttled exactly like known ones (nothing to enumerate)", async () => {
    const { auth } = setup();
    await auth.register({ email: "ada@example.test", password: PASSWORD });
    const known: string[] = [];
    const unknown: string[] = [];
    for (let i = 0; i < 8; i++) {
      known.push(await attempt(auth, "ada@example.test"));
      unknown.push(await attempt(auth, "nobody@example.test"));
    }
    expect(unknown).toEqual(known);
    expect(known.at(-1)).toMatch(/^THROTTLED/);
  });

  it("login - a throttled address can still reset its password and then sign in... after the lock", async () => {
    const sent: { kind: string; html: string }[] = [];
    const { auth, clock } = setup(sent);
    await auth.register({ email: "ada@example.test", password: PASSWORD });
    for (let i = 0; i < 6; i++) await attempt(auth, "ada@example.test");
    expect(await attempt(auth, "ada@example.test")).toMatch(/^THROTTLED/);
    expect(await auth.requestPasswordReset({ email: "ada@example.test" })).toEqual({ cooldown: 60 });
    const token = /token=([\w-]+)/.exec(
      sent.find((message) => message.kind === "password-reset")?.html ?? "",
    )?.[1];
    expect(await auth.resetPassword(token, { newPassword: "a brand new passphrase" })).toEqual({
      success: true,
    });
    clock.advance(30_000);
    expect(await attempt(auth, "ada@example.test", "a brand new passphrase")).toBe("OK");
  });
});
