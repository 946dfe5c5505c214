import { describe, expect, it } from "vitest";
import {
  AuthError,
  CooldownError,
  ERROR_CODES,
  isAuthError,
  STATUS_BY_CODE,
  ValidationError,
} from "./errors.js";
import { statusForCode } from "./http/status.js";
import { code, createTestAuth, PASSWORD } from "./test-support.js";

describe("AuthError", () => {
  it("status - every code's error carries the status of the one table, which the HTTP layer uses too", () => {
    for (const errorCode of ERROR_CODES) {
      const error = new AuthError(errorCode);
      expect(error.status, errorCode).toBe(STATUS_BY_CODE[errorCode]);
      expect(error.status, errorCode).toBe(statusForCode(errorCode));
    }
    expect(new CooldownError("LOGIN_THROTTLED", 30).status).toBe(429);
    expect(new ValidationError([]).status).toBe(400);
    expect(new AuthError("IDENTITY_PROVIDER_FAILURE").status).toBe(502);
  });

  it("status - an error a use case throws says its status: a wrong password is 401, a throttled one 429", async () => {
    const { auth } = createTestAuth();
    await auth.register({}, { email: "ada@example.test", password: PASSWORD });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      await auth
        .login({}, { email: "ada@example.test", password: "wrong password, wrong" })
        .catch((error) => {
          if (isAuthError(error)) statuses.push(error.status);
        });
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    expect(await code(auth.login({}, { email: "nope" } as never))).toBe("VALIDATION_FAILED");
  });
});
