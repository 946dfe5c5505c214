import { describe, expect, it } from "vitest";
import type { AdminApi, Auth, HostApi } from "../create-auth/auth.js";
import type { SecurityEvent } from "../events.js";
import type { Call } from "../model.js";
import { createTestAuth, PASSWORD, signIn } from "../test-support.js";

/** An admin is an account whose address starts with `admin`. */
const isAdmin = (_principal: unknown, user: { email: string }) => user.email.startsWith("admin");

/**
 * A valid input of every back-office method, aimed at `target`: so a method that skipped its
 * check would succeed, not fail on its input. A method missing here fails the tests below.
 */
const inputsFor = (target: string): { [K in keyof AdminApi]: Parameters<AdminApi[K]>[1] } => ({
  listUsers: { query: "" },
  getUser: target,
  lockUser: { userId: target, reason: "test" },
  unlockUser: target,
  revokeSessions: target,
  requirePasswordChange: { userId: target },
  impersonate: target,
  listOrganizations: { query: "" },
  listAuditLog: {},
  exportAuditLog: { format: "ndjson" },
  verifyAuditLog: {},
  authorize: undefined,
});

/**
 * A valid input of every host operation, aimed at `target` (`deleteUser` at `doomed`, as the
 * others run after it). A method missing here fails the tests below.
 */
const hostInputsFor = (
  target: string,
  doomed: string,
): { [K in keyof HostApi]: Parameters<HostApi[K]>[1] } => ({
  ...inputsFor(target),
  createUser: { email: "created@example.test" },
  setPassword: { userId: target, password: "a new passphrase from the host" },
  markEmailVerified: target,
  deleteUser: doomed,
  listActivity: { userId: target },
});

/** A registered, signed-in account: its principal and a live step-up token of its session. */
async function signedInWithStepUp(auth: Auth, email: string) {
  await auth.register({}, { email, password: PASSWORD });
  const login = await signIn(auth, { email, password: PASSWORD });
  const principal = await auth.authenticate({ token: login.accessToken });
  const stepped = await auth.stepUp({ principal }, { password: PASSWORD });
  if (stepped.twoFactorRequired) throw new Error("unexpected 2FA");
  return { principal, stepUpToken: stepped.stepUpToken, userId: login.user.id };
}

/** An auth with the back office on, an admin, a plain user, a target and an impersonation of the target. */
async function backOffice() {
  const events: SecurityEvent[] = [];
  const { auth, stores } = createTestAuth({
    admin: { authorize: isAdmin },
    organizations: { permissions: ["project:read"] },
    email: { loginAlerts: false },
    onEvent: (event) => events.push(event),
  });
  const admin = await signedInWithStepUp(auth, "admin@example.test");
  const plain = await signedInWithStepUp(auth, "plain@example.test");
  const target = await signedInWithStepUp(auth, "target@example.test");
  const adminCall = { principal: admin.principal, stepUpToken: admin.stepUpToken };
  const started = await auth.admin.impersonate(adminCall, target.userId);
  const impersonating = await auth.authenticate({ token: started.accessToken });
  return { auth, stores, events, admin, adminCall, plain, target, impersonating };
}

const ok = () => "OK";

/**
 * Every method of `auth.admin` (or `auth.host`), enumerated from the object itself (a method
 * added later is in it), each called with `call` and its input of `inputs`: its name and the
 * answer's code ("OK" when it succeeded, the error's name when it has no code, "NO INPUT" when
 * `inputs` lacks the method).
 */
async function everyMethod(
  auth: Auth,
  call: Call,
  inputs: Record<string, unknown>,
  api: "admin" | "host" = "admin",
): Promise<[string, string][]> {
  const answers: [string, string][] = [];
  for (const [name, method] of Object.entries(auth[api])) {
    if (!(name in inputs)) {
      answers.push([name, "NO INPUT"]);
      continue;
    }
    const run = method as (call: Call, input: unknown) => Promise<unknown>;
    answers.push([name, await run(call, inputs[name]).then(ok, (error) => error.code ?? error.name)]);
  }
  return answers;
}

/** Whether the user is as `backOffice` made them: not locked, no password change required. */
const untouched = async (stores: ReturnType<typeof createTestAuth>["stores"], userId: string) => {
  const user = await stores.users.findById(userId);
  return user !== null && !user.lockedAt && !user.passwordChangeRequired;
};

/** What `answers` would be if every method answered `expected`. */
const all = (answers: [string, string][], expected: string) => answers.map(([name]) => [name, expected]);

describe("back office", () => {
  it("admin - every method refuses a call without a principal: AUTHENTICATION_REQUIRED, nothing done", async () => {
    const { auth, stores, events, target } = await backOffice();
    const before = events.length;
    for (const call of [{}, { actor: "support:jane" }] as Call[]) {
      const answers = await everyMethod(auth, call, inputsFor(target.userId));
      expect(answers.length).toBeGreaterThanOrEqual(7);
      expect(answers).toEqual(all(answers, "AUTHENTICATION_REQUIRED"));
    }
    expect(events.slice(before)).toEqual([]);
    expect(await untouched(stores, target.userId)).toBe(true);
  });

  it("admin - every method refuses a plain user, with or without a step-up: ADMIN_REQUIRED, nothing done", async () => {
    const { auth, stores, events, plain, target } = await backOffice();
    const before = events.length;
    for (const call of [
      { principal: plain.principal, stepUpToken: plain.stepUpToken },
      { principal: plain.principal },
    ]) {
      const answers = await everyMethod(auth, call, inputsFor(target.userId));
      expect(answers).toEqual(all(answers, "ADMIN_REQUIRED"));
    }
    expect(events.slice(before)).toEqual([]);
    expect(await untouched(stores, target.userId)).toBe(true);
  });

  it("admin - every method refuses an impersonation, even of an admin with the admin's step-up: IMPERSONATION_NOT_ALLOWED", async () => {
    const { auth, events, admin, adminCall, target, impersonating } = await backOffice();
    const asAdmin = await auth.authenticate({
      token: (await auth.admin.impersonate(adminCall, admin.userId)).accessToken,
    });
    const before = events.length;
    for (const call of [
      { principal: impersonating },
      { principal: asAdmin },
      { principal: asAdmin, stepUpToken: admin.stepUpToken },
    ]) {
      const answers = await everyMethod(auth, call, inputsFor(target.userId));
      expect(answers).toEqual(all(answers, "IMPERSONATION_NOT_ALLOWED"));
    }
    expect(events.slice(before)).toEqual([]);
  });

  it("admin - every method asks an admin for a step-up: STEP_UP_REQUIRED without one, OK with one", async () => {
    const { auth, admin, adminCall, target } = await backOffice();
    const without = await everyMethod(auth, { principal: admin.principal }, inputsFor(target.userId));
    expect(without).toEqual(all(without, "STEP_UP_REQUIRED"));
    const answers = await everyMethod(auth, adminCall, inputsFor(target.userId));
    expect(answers).toEqual(all(answers, "OK"));
  });

  it("host - every operation refuses a principal, even an admin's with a step-up: TypeError, nothing done", async () => {
    const { auth, stores, events, adminCall, plain, target, impersonating } = await backOffice();
    const before = events.length;
    for (const call of [adminCall, { principal: plain.principal }, { principal: impersonating }]) {
      const answers = await everyMethod(auth, call, hostInputsFor(target.userId, plain.userId), "host");
      expect(answers.length).toBeGreaterThanOrEqual(12);
      expect(answers).toEqual(all(answers, "TypeError"));
    }
    expect(events.slice(before)).toEqual([]);
    expect(await untouched(stores, target.userId)).toBe(true);
  });

  it("host - every operation runs without a principal; the events name call.actor, else host", async () => {
    const { auth, events, plain, target } = await backOffice();
    const inputs = hostInputsFor(target.userId, plain.userId);
    const answers = await everyMethod(auth, { actor: "support:jane" }, inputs, "host");
    expect(answers).toEqual(all(answers, "OK"));
    expect(events.find((event) => event.type === "user.locked")).toMatchObject({ actor: "support:jane" });
    const user = await auth.host.createUser({}, { email: "second@example.test" });
    await auth.host.lockUser({}, { userId: user.id });
    expect(events.findLast((event) => event.type === "user.locked")).toMatchObject({
      userId: user.id,
      actor: "host",
    });
  });
});
