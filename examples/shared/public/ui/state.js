// What the page knows: the signed-in user and their sessions, the identity providers, a pending
// sign-in's second step, and the step-up window. Views read and change it; `render()` shows it.
import { auth, isApiError, markSignedIn } from "./client.js";

export const state = {
  /** The signed-in user (`GET /me`), or null. */
  me: null,
  sessions: [],
  providers: [],
  /** A sign-in waiting for its second step: `{ twoFactorMethods, preferredTwoFactorMethod, viaProvider, flow }`. */
  pendingLogin: null,
  /** The method picked in the second step (null: the account's preferred one). */
  twoFactorChoice: null,
  /** True once the user asked for an emailed code in the second step. */
  emailRequested: false,
  /** Until when (ms) the security settings are open after a step-up. */
  stepUpUntil: 0,
  /** A step-up's second step (the client's 2FA flow), while it waits for a code. */
  stepUpFlow: null,
  /** True while the user signs out on purpose (sign out, sign out everywhere, a password reset). */
  signingOut: false,
};

/**
 * Reloads the user and their sessions. Only an answer that says "not signed in" signs the page
 * out; a network failure keeps what is shown. True when a signed-in page lost its session
 * without the user signing out here (the caller says so).
 */
export async function loadMe() {
  const before = state.me;
  try {
    state.me = await auth.me();
    markSignedIn();
    state.sessions = (await auth.sessions.list()).sessions;
    return false;
  } catch (error) {
    const refused = isApiError(error) && error.status === 401;
    if (before && !refused) return false;
    state.me = null;
    state.sessions = [];
    state.stepUpUntil = 0;
    state.stepUpFlow = null;
    return Boolean(before) && !state.signingOut;
  }
}
