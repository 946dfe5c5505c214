import { AuthError, guardPort } from "../errors.js";
import { type SecurityEvents, withActor } from "../events.js";
import type { SsoConnectionRecord, SsoStore } from "../ports/sso-store.js";
import { ssoStoreOf } from "./connections.js";

/**
 * The connection a SCIM request came through (`NOT_FOUND` when `sso` is off or it is gone), and
 * `deps` whose events name it as who acted (`actorType: "scim"`, `actorId` its id): the audit log
 * then tells a directory's changes from a person's.
 */
export async function provisioningConnection<C extends { sso: SsoStore | undefined; events: SecurityEvents }>(
  deps: C,
  connectionId: string,
): Promise<{ connection: SsoConnectionRecord; scim: C }> {
  const store = ssoStoreOf(deps);
  const connection = await guardPort("DATABASE_FAILURE", () => store.findSsoConnection(connectionId));
  if (connection === null) throw new AuthError("NOT_FOUND");
  return { connection, scim: withActor(deps, "scim", connection.id) };
}
