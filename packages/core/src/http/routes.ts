import type { Auth } from "../create-auth/create-auth.js";
import type { Cookies } from "./cookies.js";
import { buildOpenApiDocument } from "./openapi.js";
import type { Route } from "./route.js";
import { createRouteKit, json } from "./route-kit.js";
import { requiredPasswordChangeRoutes, selfServiceRoutes } from "./routes/account.js";
import { apiKeyRoutes } from "./routes/api-keys.js";
import { adminAuditLogRoutes, organizationAuditLogRoutes } from "./routes/audit-log.js";
import { adminRoutes } from "./routes/back-office.js";
import { passwordResetRoutes, verificationRoutes } from "./routes/email-links.js";
import { emailSignInRoutes } from "./routes/email-sign-in.js";
import { oauthAccountRoutes, oauthSignInRoutes } from "./routes/identity-providers.js";
import { adminOrganizationRoutes, organizationRoutes } from "./routes/organizations.js";
import { passkeyRoutes } from "./routes/passkeys.js";
import { activityRoutes, sessionRoutes, signInRoutes } from "./routes/sessions.js";
import { twoFactorRoutes, twoFactorSettingsRoutes } from "./routes/two-factor.js";
import { adminWebhookRoutes, organizationWebhookRoutes } from "./routes/webhooks.js";
import { ssoRoutes } from "./sso-routes.js";

/** The audit log's routes (docs/audit-log.md): only with `stores.auditLog`, each with its area. */
function auditLogRoutes(auth: Auth): Route[] {
  const { options } = auth;
  if (options.stores.auditLog === undefined) return [];
  return [
    ...(options.organizations ? organizationAuditLogRoutes(auth) : []),
    ...(options.admin.authorize ? adminAuditLogRoutes(auth) : []),
  ];
}

/**
 * The webhook routes (docs/webhooks.md): only while `auth.webhooks` is on (the option with
 * `stores.webhooks` and `stores.auditLog`), each with its area.
 */
function webhookRoutes(auth: Auth): Route[] {
  if (!auth.webhooks.enabled) return [];
  return [
    ...(auth.options.organizations ? organizationWebhookRoutes(auth) : []),
    ...(auth.options.admin.authorize ? adminWebhookRoutes(auth) : []),
  ];
}

/**
 * The OAuth provider's routes (docs/oauth-provider.md), while the `oauthProvider` option is set:
 * each under `/oauth2/` or `/.well-known/`, and a cross-origin one takes no credential of ours.
 */
function oauthProviderRoutes(auth: Auth): Route[] {
  const routes = (auth.oauthProvider?.routes ?? []) as readonly Route[];
  for (const route of routes) {
    if (!/^\/(oauth2|\.well-known)\//.test(route.path))
      throw new Error(`an OAuth provider route must be under /oauth2/ or /.well-known/: ${route.path}`);
    if (route.crossOrigin && route.auth !== "none")
      throw new Error(`a cross-origin route takes no credential of ours: ${route.method} ${route.path}`);
  }
  return [...routes];
}

/**
 * The route table of docs/http-api.md, each entry one use case call and its response. The routes
 * are declared by area in `routes/`; their order here is the order of the docs' table and of the
 * OpenAPI document's paths.
 */
export function buildRoutes(auth: Auth, cookies: Cookies): Route[] {
  const kit = createRouteKit(auth, cookies);
  const routes = [
    ...signInRoutes(auth, kit),
    ...sessionRoutes(auth, kit),
    ...activityRoutes(auth),
    ...twoFactorRoutes(auth, kit),
    ...twoFactorSettingsRoutes(auth),
    ...passwordResetRoutes(auth, kit),
    ...verificationRoutes(auth),
    ...oauthSignInRoutes(auth, kit),
    ...oauthAccountRoutes(auth, kit),
    ...emailSignInRoutes(auth, kit),
    ...selfServiceRoutes(auth, kit),
    ...requiredPasswordChangeRoutes(auth, kit),
    ...(auth.options.admin.authorize ? adminRoutes(auth, kit) : []),
    ...passkeyRoutes(auth, kit),
    ...(auth.options.organizations ? organizationRoutes(auth, kit) : []),
    ...(auth.options.organizations && auth.options.admin.authorize ? adminOrganizationRoutes(auth) : []),
    ...(auth.apiKeys.enabled ? apiKeyRoutes(auth) : []),
    ...ssoRoutes(auth, kit),
    ...auditLogRoutes(auth),
    ...webhookRoutes(auth),
    ...oauthProviderRoutes(auth),
  ];
  // With API keys on, every route that takes a credential refuses a key (handler.ts) before it runs.
  if (auth.apiKeys.enabled) {
    for (const [index, route] of routes.entries())
      if (route.auth !== "none")
        routes[index] = { ...route, errors: [...route.errors, "API_KEY_NOT_ALLOWED"] } as Route;
  }
  let document: Record<string, unknown> | undefined;
  const openApi: Route = json(
    { method: "GET", path: "/openapi.json", summary: "This OpenAPI 3.1 document", auth: "none", errors: [] },
    async () => {
      document ??= buildOpenApiDocument([...routes, openApi], auth.options.basePath);
      return document;
    },
  );
  return [...routes, openApi];
}
