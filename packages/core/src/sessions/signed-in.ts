import { AuthError } from "../errors.js";
import { type Call, isIssuedPrincipal, type Principal } from "../model.js";

/**
 * The principal of a call that needs a signed-in user: `AUTHENTICATION_REQUIRED` when the call
 * has none, or one that `authenticate` or `sessions.create` did not issue; `API_KEY_NOT_ALLOWED`
 * for an API key's (keys work on the host's routes, never on the account or its credentials).
 */
export function signedIn(call: Call): Principal {
  const { principal } = call;
  if (!isIssuedPrincipal(principal)) throw new AuthError("AUTHENTICATION_REQUIRED");
  if (principal.apiKey !== null) throw new AuthError("API_KEY_NOT_ALLOWED");
  return principal;
}
