import { createArgon2Hasher } from "@portcullis/core";
import { afterEach, describe, expect, it } from "vitest";
import { readConfig } from "./config.js";
import { seedUsers } from "./seed.js";
import { createExampleAuth, type ExampleAuth } from "./setup.js";

const PASSWORD = "correct horse battery staple";
const SECRET = "example-login-alerts-q0vNI1YUbvIrpVTwF-s3PnyEbUFiLriKOHEKkmAmdDA";

/**
 * The example's auth from `env`, with a seeded user who signs in `times` times, from one browser
 * (each sign-in brings the device token of the one before) or each from a new one: the login
 * alerts sent to her.
 */
async function alertsAfterSignIns(
  env: NodeJS.ProcessEnv,
  times: number,
  track: (example: ExampleAuth) => void,
  browsers: "one" | "new each time" = "one",
) {
  const example = await createExampleAuth(
    readConfig({ AUTH_SECRET: SECRET, ...env }, () => {}),
    {
      passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
    },
  );
  track(example);
  await seedUsers(example.stores.users, [
    { email: "seeded@example.test", password: PASSWORD, emailVerified: true },
  ]);
  let deviceToken: string | undefined;
  for (let i = 0; i < times; i++) {
    const request = browsers === "one" ? { deviceToken } : {};
    const result = await example.auth.login(
      { request },
      { email: "seeded@example.test", password: PASSWORD },
    );
    if (result.twoFactorRequired) throw new Error("no second factor expected");
    deviceToken = result.deviceToken;
  }
  await example.auth.idle();
  return (example.outbox?.list() ?? []).filter((email) => email.kind === "login-alert").length;
}

describe("LOGIN_ALERTS", () => {
  const started: ExampleAuth[] = [];
  const track = (example: ExampleAuth) => started.push(example);
  afterEach(() => {
    for (const example of started.splice(0)) example.close();
  });

  it("LOGIN_ALERTS - unset: a seeded user's first sign-in alerts (no browser knows her), later ones from that browser do not", async () => {
    expect(await alertsAfterSignIns({}, 1, track)).toBe(1);
    expect(await alertsAfterSignIns({}, 3, track)).toBe(1);
  });

  it("LOGIN_ALERTS - unset: each sign-in from a new browser alerts", async () => {
    expect(await alertsAfterSignIns({}, 3, track, "new each time")).toBe(3);
  });

  it("LOGIN_ALERTS - false: no sign-in sends an alert", async () => {
    expect(await alertsAfterSignIns({ LOGIN_ALERTS: "false" }, 3, track, "new each time")).toBe(0);
  });
});
