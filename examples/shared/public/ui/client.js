// The one client of the auth routes for the whole page: `@portcullis/client` in cookie mode (the
// browser keeps the HttpOnly cookies; no token is ever handled here). It refreshes the session
// shortly before the access token expires and on a 401, one refresh at a time across the tabs.
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
