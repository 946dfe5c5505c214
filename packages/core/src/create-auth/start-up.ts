import type { AuthContext } from "../context.js";
import type { EmailRenderer } from "../emails/renderer.js";
import { loadOpenIdClient } from "../identity/relying-party.js";

/**
 * Start-up work, off the request path: the dummy hash (so the first unknown-email login costs
 * the same as any other) and the MJML templates (compiled once; a send waits if it comes first).
 */
export function startUp(ctx: AuthContext, renderer: EmailRenderer): Promise<void> {
  const { options, logger } = ctx;
  return Promise.all([
    ctx
      .dummyHash()
      .catch((error: unknown) =>
        logger.error(
          { event: "hasher.failed", err: String(error) },
          "could not prepare the dummy password hash",
        ),
      ),
    options.email.enabled
      ? renderer
          .compile()
          .catch((error: unknown) =>
            logger.error(
              { event: "email.compile_failed", err: String((error as Error).cause ?? error) },
              "could not compile email templates",
            ),
          )
      : undefined,
    // openid-client is an optional peer dependency: load it now when a provider needs it.
    options.identityProviders.length > 0
      ? loadOpenIdClient().catch((error: unknown) =>
          logger.error(
            { event: "identity_provider.client_missing", err: String((error as Error).cause ?? error) },
            "identityProviders are configured but openid-client cannot be loaded (npm install openid-client)",
          ),
        )
      : undefined,
  ]).then(() => undefined);
}
