import type { AuthContext } from "../context.js";
import { withActor } from "../events.js";
import type { Call } from "../model.js";

/**
 * The context of a call: as is, but for an API key's principal (its events' actor: `api_key`, the
 * key's id) and an impersonated session's (`impersonator`, the admin who started it).
 */
export function callerContext(ctx: AuthContext, call: Call): AuthContext {
  const principal = call.principal;
  if (principal === undefined) return ctx;
  const apiKey = principal.apiKey;
  if (apiKey !== null) return withActor(ctx, "api_key", apiKey.id);
  const impersonator = principal.impersonatedBy;
  return impersonator === undefined ? ctx : withActor(ctx, "impersonator", impersonator);
}
