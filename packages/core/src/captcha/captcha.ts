import { AuthError } from "../errors.js";
import type { RequestContext } from "../model.js";
import type { CaptchaVerifier, ResolvedCaptchaOptions } from "../options/captcha-options.js";
import type { Logger } from "../ports/logger.js";
import { withTimeout } from "../support/with-timeout.js";
import { createSiteverify } from "./siteverify.js";

/** The routes `captcha.on` can switch on by name (login has its own rule, `loginAfterFailures`). */
export type CaptchaRoute = "register" | "resetRequest" | "emailSignIn" | "verificationResend";

/** The longest token passed on to a provider; a longer one is refused unasked. */
export const MAX_CAPTCHA_TOKEN_LENGTH = 4096;

/** The CAPTCHA check of the routes bots push (the `captcha` option). */
export interface Captcha {
  /**
   * Login asks for a token once the address or the IP has this many failed logins (counted by
   * the login throttle); undefined: never.
   */
  readonly loginAfterFailures: number | undefined;
  /** Whether `route` wants a token. */
  wants(route: CaptchaRoute): boolean;
  /**
   * Checks `token` with the provider: throws 400 `CAPTCHA_REQUIRED` without one, 400
   * `CAPTCHA_INVALID` when the provider refuses it, or when it cannot answer within the timeout
   * (unless `failOpen`, then it passes). Never blocks the event loop: the provider is asked over
   * the network (or the host's verifier awaited) under a timeout.
   */
  check(token: string | undefined, request: RequestContext): Promise<void>;
}

/** The check of `options` (`captcha`): a named provider's siteverify or the host's verifier. */
export function createCaptcha(options: ResolvedCaptchaOptions, logger: Logger): Captcha {
  const { provider, timeoutMs, failOpen, on } = options;
  const verifier: CaptchaVerifier =
    typeof provider === "string"
      ? createSiteverify({ provider, secret: options.secret ?? "", verifyUrl: options.verifyUrl, timeoutMs })
      : provider;
  const verify = async (token: string, ip: string | undefined): Promise<boolean> => {
    try {
      return await withTimeout(verifier.verify(token, { ip }), timeoutMs, `no answer within ${timeoutMs} ms`);
    } catch (error) {
      logger.warn(
        { event: "captcha.unavailable", err: String(error), failOpen },
        failOpen
          ? "the CAPTCHA provider could not answer: the request is let through (failOpen)"
          : "the CAPTCHA provider could not answer: the request is refused",
      );
      return failOpen;
    }
  };
  return {
    loginAfterFailures: on.loginAfterFailures,
    wants: (route) => on[route],
    async check(token, request) {
      if (token === undefined || token === "") throw new AuthError("CAPTCHA_REQUIRED");
      if (token.length > MAX_CAPTCHA_TOKEN_LENGTH || !(await verify(token, request.ip))) {
        logger.info({ event: "captcha.refused", ip: request.ip ?? null }, "CAPTCHA token refused");
        throw new AuthError("CAPTCHA_INVALID");
      }
    },
  };
}

/**
 * Checks the token of a route `captcha.on` switches on (see `Captcha.check`); nothing when the
 * CAPTCHA is off or the route does not want one.
 */
export async function requireCaptcha(
  captcha: Captcha | undefined,
  route: CaptchaRoute,
  token: string | undefined,
  request: RequestContext,
): Promise<void> {
  if (captcha?.wants(route)) await captcha.check(token, request);
}
