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
import { signedIn } from "../sessions/signed-in.js";
import { requireStepUp } from "../two-factor/settings.js";

/**
 * Starts linking a provider to the signed-in account (needs step-up): the authorization URL to
 * send the browser to; the callback links the identity the provider vouches for.
 * `IDENTITY_PROVIDER_ALREADY_LINKED` when the account has this provider already.
 */
export async function startIdentityProviderLink(
  ctx: AuthContext,
  call: Call,
  { provider, returnTo: asked }: { provider: string; returnTo?: string | undefined },
): Promise<AuthorizationStart> {
  const principal = signedIn(call);
  relyingParty(ctx.relyingParties, provider);
  const returnTo = parseReturnTo(ctx.options.appOrigin, asked);
  const user = await requireStepUp(ctx, call);
  if ((await linkedProviders(ctx, user)).includes(provider))
    throw new AuthError("IDENTITY_PROVIDER_ALREADY_LINKED");
  return startAuthorization(ctx, provider, { mode: "link", returnTo, principal });
}
