import type { AuthContext } from "../context.js";
import { AuthError } from "../errors.js";
import { linkedProviders } from "../identity/accounts.js";
import {
  type AuthorizationStart,
  parseReturnTo,
  relyingParty,
  startAuthorization,
} from "../identity/flow.js";
import { requireStepUp, type StepUpCall } from "../two-factor/settings.js";

/**
 * Starts linking a provider to the signed-in account (needs step-up): the authorization URL to
 * send the browser to; the callback links the identity the provider vouches for.
 * `IDENTITY_PROVIDER_ALREADY_LINKED` when the account has this provider already.
 */
export async function startIdentityProviderLink(
  ctx: AuthContext,
  call: StepUpCall,
  provider: string,
  input: { returnTo?: string | undefined } = {},
): Promise<AuthorizationStart> {
  relyingParty(ctx.relyingParties, provider);
  const returnTo = parseReturnTo(ctx.options.appOrigin, input.returnTo);
  const user = await requireStepUp(ctx, call);
  if ((await linkedProviders(ctx, user)).includes(provider))
    throw new AuthError("IDENTITY_PROVIDER_ALREADY_LINKED");
  return startAuthorization(ctx, provider, { mode: "link", returnTo, principal: call.principal });
}
