import { AuthError, guardPort } from "../errors.js";
import type { Principal } from "../model.js";
import type { Clock } from "../ports/clock.js";
import type { SessionRecord, SessionStore } from "../ports/session-store.js";
import { accessTokenTtlFor } from "../sessions/impersonation.js";
import {
  accessTokenTtlSeconds,
  type LifetimeOptions,
  sessionLifetimes,
} from "../sessions/session-lifecycle.js";
import type { AccessTokenCodec } from "../tokens/access-token.js";
import { activeMember, findMember, type OrganizationDeps } from "./membership.js";

/** What signing a session's access token needs. */
export interface SessionTokenDeps {
  accessTokens: AccessTokenCodec;
  clock: Clock;
  options: LifetimeOptions;
}

/**
 * A new access token of `session` under its current `jti` (so the allowlist entry it has stays
 * the key), naming `organizationId` as its active organization (the `org` claim) when given. Its
 * lifetime is cut to the session's limits (from its latest activity) and an impersonation's hour,
 * as of `now`.
 */
export function signSessionAccessToken(
  deps: SessionTokenDeps,
  session: SessionRecord,
  organizationId: string | undefined,
  now = deps.clock.now(),
): Promise<string> {
  return deps.accessTokens.sign(
    {
      userId: session.userId,
      sessionId: session.id,
      jti: session.accessTokenJti,
      ...(session.impersonatedBy !== undefined ? { actor: session.impersonatedBy } : {}),
      ...(organizationId !== undefined ? { organizationId } : {}),
    },
    Math.min(
      accessTokenTtlSeconds(sessionLifetimes(deps), session, now),
      accessTokenTtlFor(session, now) ?? Number.POSITIVE_INFINITY,
    ),
  );
}

/**
 * The active organization a refreshed session's new access token names: the session's, while its
 * user is still a member (read now). When the membership is gone (removed, left, organization
 * deleted) or organizations are off, none, and the session forgets it.
 */
export async function activeOrganizationOnRefresh(
  deps: OrganizationDeps & { sessions: SessionStore },
  session: SessionRecord,
): Promise<string | undefined> {
  const organizationId = session.activeOrganizationId;
  if (organizationId == null) return undefined;
  const store = deps.organizations;
  const options = deps.options.organizations;
  const member =
    store !== undefined && options !== undefined
      ? await findMember({ store, options }, organizationId, session.userId)
      : null;
  if (member !== null) return organizationId;
  const clear = deps.sessions.setActiveOrganization;
  if (clear) await guardPort("DATABASE_FAILURE", () => clear.call(deps.sessions, session.id, null));
  return undefined;
}

/** Makes `organizationId` the session's active one; `AUTHENTICATION_REQUIRED` when the session is gone. */
export async function setActiveOrganization(
  sessions: SessionStore,
  sessionId: string,
  organizationId: string | null,
): Promise<SessionRecord> {
  const set = sessions.setActiveOrganization;
  if (set === undefined) throw new AuthError("INTERNAL_ERROR");
  const session = await guardPort("DATABASE_FAILURE", () => set.call(sessions, sessionId, organizationId));
  if (session === null) throw new AuthError("AUTHENTICATION_REQUIRED");
  return session;
}

/** The active organization as `/me` shows it. */
export interface ActiveOrganization {
  id: string;
  slug: string;
  role: string;
  permissions: string[];
}

/**
 * The principal's active organization with the member's role and permissions, read now (the
 * membership as `activeMember` reads it): null when its access token names none, or the
 * membership (or the organization) is gone.
 */
export async function activeOrganizationOf(
  deps: OrganizationDeps,
  principal: Principal,
): Promise<ActiveOrganization | null> {
  const store = deps.organizations;
  const options = deps.options.organizations;
  const organizationId = principal.activeOrganizationId;
  if (store === undefined || options === undefined || organizationId === null) return null;
  const member = await activeMember(deps, { store, options }, principal, organizationId);
  if (member === null) return null;
  const organization = await guardPort("DATABASE_FAILURE", () => store.findOrganization(organizationId));
  if (organization === null) return null;
  return {
    id: organization.id,
    slug: organization.slug,
    role: member.role,
    permissions: [...member.permissions],
  };
}
