import { jwtVerify } from "jose";
import { AuthError } from "../errors.js";
import type { Clock } from "../ports/clock.js";
import { JWT_ALGORITHM, signSessionJwt } from "../tokens/jwt.js";
import type { SigningKeys } from "../tokens/keys.js";

/** The JWT `typ` of step-up tokens: never accepted as an access token, and the reverse. */
const STEP_UP_TYPE = "step-up+jwt";

export interface StepUpTokens {
  sign(userId: string, sessionId: string): Promise<string>;
  /** Throws `STEP_UP_REQUIRED` unless `token` is a live step-up token of this user and session. */
  verify(token: string | undefined, userId: string, sessionId: string): Promise<void>;
}

/** Short-lived proof of a fresh password (and second factor) check, bound to user and session. */
export function createStepUpTokens(options: {
  keys: SigningKeys;
  issuer: string;
  audience: string;
  ttlSeconds: number;
  clock: Clock;
}): StepUpTokens {
  const { keys } = options;
  return {
    sign: async (userId, sessionId) =>
      signSessionJwt(keys, {
        typ: STEP_UP_TYPE,
        userId,
        sessionId,
        issuer: options.issuer,
        audience: options.audience,
        issuedAtSeconds: Math.floor(options.clock.now() / 1000),
        ttlSeconds: options.ttlSeconds,
      }),
    async verify(token, userId, sessionId) {
      if (!token || token.length > 2048) throw new AuthError("STEP_UP_REQUIRED");
      try {
        const { payload } = await jwtVerify(token, keys.resolve, {
          algorithms: [JWT_ALGORITHM],
          typ: STEP_UP_TYPE,
          issuer: options.issuer,
          audience: options.audience,
          currentDate: new Date(options.clock.now()),
          requiredClaims: ["exp", "sub", "sid"],
        });
        if (payload.sub !== userId || payload.sid !== sessionId) throw new Error("other user or session");
      } catch (error) {
        throw new AuthError("STEP_UP_REQUIRED", { cause: error });
      }
    },
  };
}
