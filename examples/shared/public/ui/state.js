// What the page knows, in one place: the signed-in user and their sessions, the identity providers,
// a pending sign-in's second step, the step-up window, the verification link's result and an email
// sign-in asked for. Views read and change it; `render()` shows it, so a re-render loses nothing.
import { auth, isApiError, markSignedIn, signedOutWords } from "./client.js";

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
  /** A step-up's second step (the client's 2FA flow), while it waits for a code. */
  stepUpFlow: null,
  /** True while the user signs out on purpose (sign out, sign out everywhere, a password reset). */
  signingOut: false,
  /** What the verification link's check found: `{ key }` of our words, or `{ error }` of the API; null while it runs. */
  verifyResult: null,
  /** An email sign-in asked for (`{ email, rememberMe }`): the page offers the field for its code. */
  emailSignIn: null,
  /** True once the server said it does not offer sign-in by email: the button goes away. */
  emailSignInOff: false,
};

/**
 * The step-up belongs to the session (its cookie is the browser's), not to the page: kept with
 * the user's id in localStorage, so every page and tab of the session shows the same.
 */
const STEP_UP_KEY = "portcullis-step-up";

/** True while the signed-in user's step-up is open (as far as this browser knows). */
export function stepUpOpen() {
  if (!state.me) return false;
  try {
    const kept = JSON.parse(localStorage.getItem(STEP_UP_KEY) ?? "null");
    return kept?.user === state.me.id && Date.now() < kept.until;
  } catch {
    return false;
  }
}
/** The step-up is open until `until` (ms), or closed with 0 (it ran out, or the server said so). */
export function setStepUp(until) {
  if (until > 0 && state.me) localStorage.setItem(STEP_UP_KEY, JSON.stringify({ user: state.me.id, until }));
  else localStorage.removeItem(STEP_UP_KEY);
}

/**
 * Reloads the user and their sessions. Only an answer that says "not signed in" signs the page
 * out; a network failure keeps what is shown. When a signed-in page lost its session without the
 * user signing out here, the key of the words that say why (the caller says so); else false.
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
    setStepUp(0);
    state.stepUpFlow = null;
    if (error?.code === "SESSION_EXPIRED") return Boolean(before) && !state.signingOut && "signedOut.expired";
    return Boolean(before) && !state.signingOut && signedOutWords();
  }
}
