import type { OAuthStore } from "@portcullis/core";
import type { SqlContext } from "./context.js";
import { clientMethods } from "./oauth-clients.js";
import { consentMethods } from "./oauth-consents.js";
import { deviceMethods } from "./oauth-devices.js";
import { grantMethods } from "./oauth-grants.js";

/**
 * The OAuth / OpenID provider's state in the four tables of `0018_oauth` (`<prefix>oauth_clients`,
 * `oauth_grants`, `oauth_consents`, `oauth_devices`). Each change that must be atomic is one
 * conditional statement (a refresh hash swapped only while it is the presented one, a device
 * decided only while pending) or, for a client's deletion, one transaction. Times are compared
 * with the `now` the caller passes, never a clock of the database's.
 */
export function createSqlOAuthStore(context: SqlContext): OAuthStore {
  return {
    ...clientMethods(context),
    ...grantMethods(context),
    ...consentMethods(context),
    ...deviceMethods(context),
  };
}
