import type { Auth, Route, SsoPlugin, SsoRouteKit } from "@portcullis/core";
import { connectionRoutes } from "./connections.js";
import { type SsoOptions, ssoContext } from "./context.js";
import { domainRoutes } from "./domains.js";
import { signInRoutes } from "./oidc-callback.js";
import { scimRoutes } from "./scim-routes.js";

export type { SsoOptions } from "./context.js";

/**
 * Enterprise sign-in per organization (docs/sso.md), for `createAuth({ sso: createSso({ store, scim }) })`:
 * SAML connections, verified domains and the sign-in through them, and with `scim` each
 * connection's SCIM 2.0 directory. It needs `appOrigin`,
 * `organizations` and `stores.identities` on the `createAuth` options.
 */
export function createSso(options: SsoOptions): SsoPlugin<Auth, Route, SsoRouteKit> {
  return {
    store: options.store,
    setUp(auth) {
      return {
        routes(kit) {
          const ctx = ssoContext(auth, options, kit);
          return [...signInRoutes(ctx), ...connectionRoutes(ctx), ...domainRoutes(ctx), ...scimRoutes(ctx)];
        },
      };
    },
  };
}
