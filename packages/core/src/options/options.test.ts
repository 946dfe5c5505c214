import { randomBytes } from "node:crypto";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { z } from "zod";
import type { SecurityEvent } from "../events.js";
import type { LocaleResources } from "../i18n/index.js";
import {
  type AuthOptionFields,
  type AuthOptions,
  type AuthStores,
  type authOptionsSchema,
  parseAuthOptions,
  type RequiredMethods,
  STORE_METHODS,
} from "./options.js";

/** What the schema accepts, as zod infers it (`locales` aside: the interface types its strings). */
type SchemaInput = Omit<z.input<typeof authOptionsSchema>, "locales">;

/** Random (`createAuth` refuses placeholders, repeats and sequences): a made-up one would not start. */
const TEST_SECRET = "test-secret--Xqhj7KKuQIZYk1ZmwEfIcFYTaXSOki1lZ3AYb8Kqlg";

const fakePort = (methods: readonly string[]) => Object.fromEntries(methods.map((name) => [name, () => {}]));
const stores = {
  users: fakePort(STORE_METHODS.users),
  cooldowns: fakePort(STORE_METHODS.cooldowns),
  sessions: fakePort(STORE_METHODS.sessions),
  allowlist: fakePort(STORE_METHODS.allowlist),
  singleUseTokens: fakePort(STORE_METHODS.singleUseTokens),
} as never;
const valid = { secret: TEST_SECRET, stores, email: { enabled: false as const } };

describe("parseAuthOptions", () => {
  it("parseAuthOptions - fills in the documented defaults", () => {
    const options = parseAuthOptions(valid);
    expect(options).toMatchObject({
      basePath: "/api/auth",
      accessTokenTtlSeconds: 900,
      allowHeaderAuthentication: true,
      preferHeaderAuthentication: true,
      password: { minLength: 8, maxLength: 256 },
      email: { enabled: false, cooldownSeconds: 60, loginAlerts: true },
      cookies: { secure: false, sameSite: "strict", hostPrefix: false },
      bodyLimitBytes: 16384,
      trustProxy: 0,
      ipLimits: {
        enabled: true,
        failedLogins: { max: 100, windowSeconds: 900 },
        registrations: { max: 20, windowSeconds: 3600 },
        passwordResetRequests: { max: 20, windowSeconds: 3600 },
        verificationSends: { max: 20, windowSeconds: 3600 },
      },
    });
    expect(options.secret).toEqual([TEST_SECRET]);
  });

  it("parseAuthOptions - secret may be a list for rotation; each one must be strong", () => {
    const next = "next-secret-UR5YYHAG0P7WSt1ppTIKkWegJKdp__VUsK_kkQOYmrA";
    expect(parseAuthOptions({ ...valid, secret: [next, TEST_SECRET] }).secret).toEqual([next, TEST_SECRET]);
    expect(() => parseAuthOptions({ ...valid, secret: [next, "a".repeat(40)] })).toThrow('"secret.1"');
    expect(() => parseAuthOptions({ ...valid, secret: [] })).toThrow('"secret"');
  });

  it.each([
    ["one repeated character", "x".repeat(64)],
    ["a repeated stretch", "abcdabcdabcdabcdabcdabcdabcdabcdabcd"],
    ["a sequence", "0123456789abcdef0123456789abcdef"],
    ["sequences of letters and digits", "abcdefghijklmnopqrstuvwxyz012345"],
    ["a placeholder word, repeated", "password".repeat(4)],
    ["32 hex digits (128 bits at best)", "9f86d081884c7d659a2feaa0c55ad015"],
    ["a short one", "0123456789abcdef"],
    ["repeated bytes", new Uint8Array(48).fill(7)],
  ])("parseAuthOptions - refuses a weak secret (%s)", (_, secret) => {
    expect(() => parseAuthOptions({ ...valid, secret })).toThrow('"secret"');
  });

  it("parseAuthOptions - takes random secrets as openssl makes them", () => {
    for (const secret of [
      randomBytes(32).toString("hex"),
      randomBytes(48).toString("base64"),
      randomBytes(32),
    ])
      expect(parseAuthOptions({ ...valid, secret }).secret).toEqual([secret]);
    const key = randomBytes(32).toString("base64url");
    expect(parseAuthOptions({ ...valid, twoFactor: { encryptionKey: key } }).twoFactor.encryptionKey).toEqual(
      [key],
    );
    expect(() => parseAuthOptions({ ...valid, twoFactor: { encryptionKey: "changeme".repeat(4) } })).toThrow(
      '"twoFactor.encryptionKey"',
    );
  });

  it.each([
    [{ secret: "short" }, '"secret"'],
    [{ accessTokenTtlSeconds: -1 }, '"accessTokenTtlSeconds"'],
    [{ basePath: "api/" }, '"basePath"'],
    [{ email: { enabled: true } }, '"mailer"'],
    [{ email: { enabled: false, cooldownSeconds: "60" } }, '"email.cooldownSeconds"'],
    [{ cookies: { hostPrefix: true } }, '"cookies.hostPrefix"'],
    [{ cookies: { sameSite: "none" } }, '"cookies.sameSite"'],
    [{ appOrigin: "javascript:alert(1)" }, '"appOrigin"'],
    [{ appOrigin: "acme.test" }, '"appOrigin" must be an http(s) URL'],
    [{ trustedOrigins: ["https://ok.test", "not a url"] }, '"trustedOrigins.1"'],
    [{ trustProxy: -1 }, '"trustProxy"'],
    [{ ipLimits: { failedLogins: { max: 0 } } }, '"ipLimits.failedLogins.max"'],
    [{ onEvent: "log" }, '"onEvent"'],
    [{ stores: { ...(stores as object), users: {} } }, '"stores.users"'],
  ])("parseAuthOptions - a bad option throws naming it (%j)", (patch, name) => {
    expect(() => parseAuthOptions({ ...valid, ...patch } as never)).toThrow(name);
  });

  // Checked by `pnpm typecheck` (tsc): the documented interface and the validation cannot drift.
  it("AuthOptions - the documented interface and the schema's input type agree both ways", () => {
    expectTypeOf<Omit<AuthOptionFields, "locales">>().toEqualTypeOf<SchemaInput>();
    expectTypeOf<LocaleResources>().toExtend<NonNullable<z.input<typeof authOptionsSchema>["locales"]>>();
    expectTypeOf<keyof AuthOptionFields>().toEqualTypeOf<keyof z.input<typeof authOptionsSchema>>();
    expectTypeOf<AuthOptions>().toExtend<AuthOptionFields>();
  });

  // The @ts-expect-error lines are checked by `pnpm typecheck`: the type refuses what start-up refuses.
  it("AuthOptions - mailer and appOrigin are required while email is on, in the type as at start-up", () => {
    const mailer = { send: async () => {} };
    const appOrigin = "https://app.acme.test";
    // @ts-expect-error email is on by default: no mailer, no appOrigin
    expect(() => parseAuthOptions({ secret: TEST_SECRET, stores })).toThrow('"mailer"');
    // @ts-expect-error email on: no appOrigin
    expect(() => parseAuthOptions({ secret: TEST_SECRET, stores, mailer })).toThrow('"appOrigin"');
    // @ts-expect-error email on: no mailer
    expect(() => parseAuthOptions({ secret: TEST_SECRET, stores, appOrigin })).toThrow('"mailer"');
    const maybe = { enabled: process.env.NEVER_SET_IN_TESTS !== "false" };
    // @ts-expect-error an `enabled` that may be true needs the mailer
    expect(() => parseAuthOptions({ secret: TEST_SECRET, stores, appOrigin, email: maybe })).toThrow(
      '"mailer"',
    );
    const on = parseAuthOptions({ secret: TEST_SECRET, stores, mailer, appOrigin, email: maybe });
    expect(on.email.enabled).toBe(true);
    const off = parseAuthOptions({ secret: TEST_SECRET, stores, email: { enabled: false } });
    expect([off.mailer, off.appOrigin]).toEqual([undefined, undefined]);
  });

  it("onEvent - a hook that returns anything type-checks: (e) => events.push(e), an async function", () => {
    const events: SecurityEvent[] = [];
    const pushing: AuthOptions["onEvent"] = (event) => events.push(event);
    const asynchronous: AuthOptions["onEvent"] = async (event) => {
      events.push(event);
    };
    const parsed = parseAuthOptions({ ...valid, onEvent: pushing });
    expect(parsed.onEvent).toBe(pushing);
    expect(parseAuthOptions({ ...valid, onEvent: asynchronous }).onEvent).toBe(asynchronous);
  });
});

describe("STORE_METHODS", () => {
  it("STORE_METHODS - each list names exactly the required methods of its port, for every store of AuthStores", () => {
    type Listed<K extends keyof typeof STORE_METHODS> = (typeof STORE_METHODS)[K][number];
    type Port<K extends keyof AuthStores> = NonNullable<AuthStores[K]>;
    expectTypeOf<keyof typeof STORE_METHODS>().toEqualTypeOf<keyof AuthStores>();
    expectTypeOf<Listed<"users">>().toEqualTypeOf<RequiredMethods<Port<"users">>>();
    expectTypeOf<Listed<"cooldowns">>().toEqualTypeOf<RequiredMethods<Port<"cooldowns">>>();
    expectTypeOf<Listed<"sessions">>().toEqualTypeOf<RequiredMethods<Port<"sessions">>>();
    expectTypeOf<Listed<"allowlist">>().toEqualTypeOf<RequiredMethods<Port<"allowlist">>>();
    expectTypeOf<Listed<"singleUseTokens">>().toEqualTypeOf<RequiredMethods<Port<"singleUseTokens">>>();
    expectTypeOf<Listed<"identities">>().toEqualTypeOf<RequiredMethods<Port<"identities">>>();
    expectTypeOf<Listed<"together">>().toEqualTypeOf<RequiredMethods<Port<"together">>>();
    expectTypeOf<Listed<"joint">>().toEqualTypeOf<RequiredMethods<Port<"joint">>>();
    expectTypeOf<Listed<"activity">>().toEqualTypeOf<RequiredMethods<Port<"activity">>>();
  });

  it.each(["sessions", "allowlist", "singleUseTokens"] as const)(
    "parseAuthOptions - stores.%s is required and must have every method of its port",
    (store) => {
      const { [store]: _left, ...rest } = stores as Record<string, object>;
      expect(() => parseAuthOptions({ ...valid, stores: rest } as never)).toThrow(`"stores.${store}"`);
      for (const method of STORE_METHODS[store]) {
        const port = { ...(stores as Record<string, object>)[store], [method]: undefined };
        expect(() => parseAuthOptions({ ...valid, stores: { ...rest, [store]: port } } as never)).toThrow(
          `"stores.${store}"`,
        );
      }
    },
  );
});
