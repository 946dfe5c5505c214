import { z } from "zod";
import type { SsoStore } from "../ports/sso-store.js";

/**
 * The `sso` option: enterprise sign-in per organization of `@portcullis/sso` (`createSso`,
 * docs/sso.md). The core knows it only by this shape, so a host that does not use it bundles none
 * of its SAML or SCIM libraries. The core itself uses `store`: where a connection's sign-in
 * lands, and which sign-ins `SSO_REQUIRED` refuses.
 */
export interface SsoPlugin<TAuth = never, TRoute = unknown, TKit = never> {
  /** The connections, domains and used assertions (`SsoStore`). */
  readonly store: SsoStore;
  /**
   * Called once by `createAuth`, with the finished `Auth` (typed `never` here, so the plugin's own
   * `(auth: Auth) => …` fits): the routes it adds, made when the HTTP layer builds its table (with
   * the layer's cookies, `kit`).
   */
  setUp(auth: TAuth): { routes(kit: TKit): readonly TRoute[] };
}

/** The validation of the `sso` option: an object with `store` and `setUp`, as `createSso` makes it. */
export const ssoOptionSchema = z
  .custom<SsoPlugin>(
    (value) =>
      typeof value === "object" &&
      value !== null &&
      typeof (value as SsoPlugin).setUp === "function" &&
      typeof (value as SsoPlugin).store === "object" &&
      (value as SsoPlugin).store !== null,
    { message: "must be the enterprise sign-in of @portcullis/sso (createSso)" },
  )
  .optional();

/** The refinement's message while `sso` is set without `appOrigin` or organizations. */
export const SSO_NEEDS_ORIGIN = {
  message: "is required while sso is set: the service provider's entity id and ACS URL are built from it",
  path: ["appOrigin"],
};
export const SSO_NEEDS_ORGANIZATIONS = {
  message: "is required while sso is set: a connection belongs to an organization",
  path: ["organizations"],
};
