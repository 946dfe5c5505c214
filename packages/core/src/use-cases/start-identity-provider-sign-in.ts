import type { AuthContext } from "../context.js";
import { AuthError } from "../errors.js";
import { linkedProviders } from "../identity/accounts.js";
import {
  type AuthorizationStart,
  parseReturnTo,
  relyingParty,
  startAuthorization,
} from "../identity/flow.js";
import type { Call } from "../model.js";
import { currentUser } from "../sessions/current-user.js";
import { assertNotImpersonating } from "../sessions/impersonation.js";
import { signedIn } from "../sessions/signed-in.js";

/**
 * Starts a sign-in with an identity provider: the provider's authorization URL (state, nonce,
 * PKCE S256) and the state to bind to the browser. With `stepUp` (and the signed-in user's
 * principal in the call), the provider is asked for a fresh login and the callback gives a step-up token instead of a
 * session; the provider must be linked to that account (`IDENTITY_PROVIDER_MISMATCH`).
 */
export async function startIdentityProviderSignIn(
  ctx: AuthContext,
  call: Call,
  { provider, ...input }: { provider: string; returnTo?: string | undefined; stepUp?: boolean | undefined },
): Promise<AuthorizationStart> {
  const principal = input.stepUp ? signedIn(call) : undefined;
  assertNotImpersonating(principal);
  relyingParty(ctx.relyingParties, provider);
  const returnTo = parseReturnTo(ctx.options.appOrigin, input.returnTo);
  if (!principal) return startAuthorization(ctx, provider, { mode: "sign-in", returnTo });
  const user = await currentUser(ctx, principal);
  if (!(await linkedProviders(ctx, user)).includes(provider))
    throw new AuthError("IDENTITY_PROVIDER_MISMATCH");
  return startAuthorization(ctx, provider, { mode: "step-up", returnTo, principal });
}
