// The one client of the auth routes for the whole page: `@portcullis/client` in cookie mode (the
// browser keeps the HttpOnly cookies; no token is ever handled here). It refreshes the session
// when the access token is about to expire or is refused, one refresh at a time across the tabs,
// but only for a user who is there: a call, or the input events below (`auth.touch`). A tab left
// alone makes no refresh, so its session ends by the server's idle timeout (SESSION_IDLE_SECONDS).
import { createAuthClient, PortcullisError } from "/portcullis-client.js";
import { currentLanguage } from "./strings.js";

/** Set while this browser has a session: without it a 401 tries no refresh (it has no cookie worth trying). */
const SIGNED_IN_KEY = "portcullis-signed-in";

export const auth = createAuthClient({
  baseUrl: "/api/auth",
  locale: currentLanguage,
  initialState: localStorage.getItem(SIGNED_IN_KEY) === "1" ? "unknown" : "signed-out",
});

/** Remembers that this browser has a session (a sign-in here, or an answer that said so). */
export const markSignedIn = () => localStorage.setItem(SIGNED_IN_KEY, "1");
auth.on("signedIn", markSignedIn);
auth.on("signedOut", () => localStorage.removeItem(SIGNED_IN_KEY));

/** True for a refused call that came with an answer of the API (not a network failure). */
export const isApiError = (error) => error instanceof PortcullisError && error.code !== "NETWORK_FAILURE";

// The user's activity: the next refresh may go ahead (the client makes one now when the access
// token has lapsed or soon will).
for (const type of ["pointerdown", "keydown", "touchstart"])
  addEventListener(type, () => void auth.touch(), { capture: true, passive: true });

/** The code the last session ended with (`SESSION_EXPIRED`: idle or too old), for the words. */
let endedWith = null;
auth.on("signedOut", ({ code }) => {
  endedWith = code ?? null;
});
/** What the page says when its session ended without the user signing out here. */
export const signedOutWords = () =>
  endedWith === "SESSION_EXPIRED" ? "signedOut.expired" : "signedOut.elsewhere";
