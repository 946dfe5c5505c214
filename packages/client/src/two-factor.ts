import type { TwoFactorMethod } from "./api-types.js";
import { PortcullisError } from "./errors.js";
import type { LoginResponse, RouteKey, Routes, SignedInResponse, StepUpResponse } from "./routes.js";
import type { CallInit } from "./transport.js";

/**
 * Where a 2FA flow is: waiting for a code, done (signed in or stepped up), or `expired` (its 2FA
 * token was refused: start again with the password).
 */
export type TwoFactorState = "code-required" | "completed" | "expired";

/** The answer that started a flow: a login's or a step-up's `twoFactorRequired: true`. */
export type TwoFactorStart =
  | Extract<LoginResponse, { twoFactorRequired: true }>
  | Extract<StepUpResponse, { twoFactorRequired: true }>;

/** What a completed flow answers: the sign-in, or the step-up. */
export type TwoFactorResult<S extends TwoFactorStart> = S extends { stepUpToken: null }
  ? Extract<StepUpResponse, { twoFactorRequired: false }>
  : SignedInResponse;

/** The second step of a sign-in or a step-up, as a small state machine. */
export interface TwoFactorFlow<S extends TwoFactorStart = TwoFactorStart> {
  readonly purpose: "login" | "step-up";
  readonly methods: readonly TwoFactorMethod[];
  readonly preferredMethod: TwoFactorMethod | null;
  readonly state: TwoFactorState;
  /** Mails a code (email 2FA); `cooldown` is the seconds before another may be sent. */
  sendEmailCode(): Promise<{ cooldown: number }>;
  /** Seconds until `sendEmailCode` can mail a code (0: now). */
  emailCooldown(): Promise<{ remaining: number }>;
  /**
   * A TOTP or emailed code: `completed` on success; a wrong code keeps `code-required`. With
   * `trustBrowser: true` (sign-in only) this browser skips the second factor of its next password
   * sign-ins to the account until the trust ends.
   */
  submit(
    code: string,
    options?: { rememberMe?: boolean; trustBrowser?: boolean },
  ): Promise<TwoFactorResult<S>>;
  /** A recovery code (sign-in only): `completed` on success; `trustBrowser` as for `submit`. */
  recover(
    code: string,
    options?: { rememberMe?: boolean; trustBrowser?: boolean },
  ): Promise<SignedInResponse>;
  /** Called with the new state on each change; returns the function that stops it. */
  subscribe(listener: (state: TwoFactorState) => void): () => void;
}

type Call = <K extends RouteKey>(key: K, init: CallInit<K>) => Promise<Routes[K]["response"]>;

/** A flow for `start`; `call` is the client's typed call (which keeps the tokens of the answer). */
export function createTwoFactorFlow<S extends TwoFactorStart>(start: S, call: Call): TwoFactorFlow<S> {
  const purpose = "stepUpToken" in start ? "step-up" : "login";
  const token = start.twoFactorAuthenticationToken;
  const headers: Record<string, string> = token ? { "x-two-factor-authentication-token": token } : {};
  let state: TwoFactorState = "code-required";
  const listeners = new Set<(state: TwoFactorState) => void>();
  const move = (next: TwoFactorState) => {
    if (next === state) return;
    state = next;
    for (const listener of [...listeners]) listener(next);
  };
  const guard = async <T>(run: () => Promise<T>): Promise<T> => {
    if (state !== "code-required")
      throw new PortcullisError("TWO_FACTOR_TOKEN_INVALID", `This 2FA flow is ${state}`, { status: 401 });
    try {
      const result = await run();
      move("completed");
      return result;
    } catch (error) {
      if (error instanceof PortcullisError && error.code === "TWO_FACTOR_TOKEN_INVALID") move("expired");
      throw error;
    }
  };
  return {
    purpose,
    methods: start.twoFactorMethods,
    preferredMethod: start.preferredTwoFactorMethod,
    get state() {
      return state;
    },
    sendEmailCode() {
      if (state !== "code-required")
        return Promise.reject(new PortcullisError("TWO_FACTOR_TOKEN_INVALID", `This 2FA flow is ${state}`));
      // A step-up's code goes to the signed-in user (access token); a login's to the 2FA token's.
      return call("POST /2fa/email/send", purpose === "login" ? { headers } : {});
    },
    emailCooldown() {
      return call("GET /2fa/email/cooldown", purpose === "login" ? { headers } : {});
    },
    submit(code, options = {}) {
      const body = { code, ...options };
      return guard(async () =>
        purpose === "login"
          ? call("POST /2fa/login", { body, headers })
          : call("POST /2fa/step-up", { body: { code }, headers }),
      ) as Promise<TwoFactorResult<S>>;
    },
    recover(code, options = {}) {
      if (purpose !== "login")
        return Promise.reject(
          new PortcullisError("VALIDATION_FAILED", "Recovery codes finish sign-ins only"),
        );
      return guard(() =>
        call("POST /2fa/recover", { body: { code, ...options }, headers }),
      ) as Promise<SignedInResponse>;
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}
