import {
  type CaptchaProviderName,
  type CaptchaVerifier,
  SITEVERIFY_URLS,
} from "../options/captcha-options.js";

/** The most bytes of a siteverify answer read (a real one is a few hundred); past it the check fails. */
export const MAX_SITEVERIFY_ANSWER_BYTES = 64 * 1024;

/** What a named provider's verifier is made of. */
export interface SiteverifyConfig {
  provider: CaptchaProviderName;
  secret: string;
  /** Overrides the provider's siteverify URL. */
  verifyUrl?: string | undefined;
  /** How long one check may take (headers and body), in milliseconds. */
  timeoutMs: number;
}

/**
 * The verifier of Turnstile, hCaptcha and reCAPTCHA, which share one protocol: a form-encoded
 * POST of `secret`, `response` (the token) and `remoteip` to the siteverify URL, answered with
 * JSON whose boolean `success` is the verdict. A request that fails, takes longer than
 * `timeoutMs`, answers a status other than 200, more than `MAX_SITEVERIFY_ANSWER_BYTES` or
 * anything without a boolean `success` rejects: the service could not answer.
 */
export function createSiteverify(config: SiteverifyConfig): CaptchaVerifier {
  const url = config.verifyUrl ?? SITEVERIFY_URLS[config.provider];
  return {
    async verify(token, { ip }) {
      const form = new URLSearchParams({ secret: config.secret, response: token });
      if (ip !== undefined) form.set("remoteip", ip);
      const response = await fetch(url, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
        body: form.toString(),
        signal: AbortSignal.timeout(config.timeoutMs),
        redirect: "error",
      });
      const declared = Number(response.headers.get("content-length") ?? Number.NaN);
      if (response.status !== 200 || declared > MAX_SITEVERIFY_ANSWER_BYTES) {
        await response.body?.cancel().catch(() => undefined);
        throw new Error(`siteverify answered ${response.status} with ${declared} bytes`);
      }
      const text = await response.text();
      if (text.length > MAX_SITEVERIFY_ANSWER_BYTES) throw new Error("siteverify answered too much");
      const success: unknown = (JSON.parse(text) as { success?: unknown } | null)?.success;
      if (typeof success !== "boolean") throw new Error("siteverify answered no boolean success");
      return success;
    },
  };
}
