import { createMemoryStores } from "@portcullis/store-memory";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createAuth } from "../create-auth/create-auth.js";
import { createArgon2Hasher } from "../hashing/argon2-hasher.js";
import { silentLogger } from "../ports/logger.js";
import { createHttpHandler } from "./handler.js";

/** Random (`createAuth` refuses placeholders, repeats and sequences): a made-up one would not start. */
const TEST_SECRET = "test-secret--Xqhj7KKuQIZYk1ZmwEfIcFYTaXSOki1lZ3AYb8Kqlg";

/** Any JSON a client could send, with the awkward keys and strings mixed in. */
const anyJson = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.constant(null),
    fc.boolean(),
    fc.double(),
    fc.string({ unit: "binary", maxLength: 80 }),
    fc.constantFrom("__proto__", "constructor", "\u0000", "\r\nbcc: x@y.test", "a@b@c.test", "x".repeat(300)),
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(
      fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom("__proto__", "email", "password", "code")),
      tie("value"),
      {
        maxKeys: 4,
      },
    ),
  ),
})).value;

describe("HTTP layer under arbitrary input", () => {
  it("every body route answers bad JSON values with a 4xx and a code, never 500, and bad shapes never reach a store", async () => {
    const stores = createMemoryStores({ sweepIntervalMs: 0 });
    let storeCalls = 0;
    for (const store of [
      stores.users,
      stores.sessions,
      stores.allowlist,
      stores.singleUseTokens,
      stores.cooldowns,
    ] as unknown as Record<string, unknown>[]) {
      for (const [name, method] of Object.entries(store)) {
        if (
          typeof method === "function" &&
          !["sweep", "size", "createSessionId", "createAccessTokenId"].includes(name)
        ) {
          store[name] = (...args: unknown[]) => {
            storeCalls += 1;
            return (method as (...a: unknown[]) => unknown)(...args);
          };
        }
      }
    }
    const auth = createAuth({
      secret: TEST_SECRET,
      stores,
      logger: silentLogger,
      email: { enabled: false },
      passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
    });
    const handler = createHttpHandler(auth);
    const paths = [
      "/register",
      "/login",
      "/password/reset?token=x",
      "/refresh",
      "/2fa/login",
      "/email/verification?token=x",
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...paths), anyJson, async (path, value) => {
        const before = storeCalls;
        const response = await handler.handle({
          method: "POST",
          url: `/api/auth${path}`,
          headers: { "content-type": "application/json" },
          body: JSON.stringify(value),
        });
        expect(response?.status).toBeGreaterThanOrEqual(200);
        expect(response?.status).toBeLessThan(500);
        if ((response?.status ?? 0) >= 400) expect(response?.headers["auth-error-code"]).toMatch(/^[A-Z_]+$/);
        const isCredentialShape =
          typeof value === "object" &&
          value !== null &&
          typeof (value as { email?: unknown }).email === "string";
        if ((path === "/register" || path === "/login") && !isCredentialShape)
          expect(storeCalls).toBe(before);
      }),
      { numRuns: 400 },
    );
  });
});
