import {
  type Clock,
  type SsoConnectionPatch,
  type SsoConnectionRecord,
  type SsoDomainRecord,
  type SsoStore,
  systemClock,
} from "@portcullis/core";
import { clonePlain } from "./clone.js";

/** How often (by the store's clock) the used assertions past their `expiresAt` are swept. */
const SWEEP_EVERY_MS = 60_000;

/** What the store holds: plain maps, each record a copy of what it was given. */
interface SsoState {
  clock: Clock;
  connections: Map<string, SsoConnectionRecord>;
  /** domain → id of the connection naming it (at most one). */
  domainOwners: Map<string, string>;
  /** scimTokenHash → connection id. */
  scimTokens: Map<string, string>;
  /** domain → organizationId → that organization's claim. */
  claims: Map<string, Map<string, SsoDomainRecord>>;
  /** connectionId → assertionId → expiresAt (ms). */
  assertions: Map<string, Map<string, number>>;
  /** The clock's reading at the last sweep; null before the first. */
  sweptAt: number | null;
}

/** Adds the connection's domains and SCIM token hash to the indexes. */
function index(state: SsoState, connection: SsoConnectionRecord): void {
  for (const domain of connection.domains) state.domainOwners.set(domain, connection.id);
  if (connection.scimTokenHash !== null) state.scimTokens.set(connection.scimTokenHash, connection.id);
}

/** Removes the connection's domains and SCIM token hash from the indexes. */
function unindex(state: SsoState, connection: SsoConnectionRecord): void {
  for (const domain of connection.domains)
    if (state.domainOwners.get(domain) === connection.id) state.domainOwners.delete(domain);
  if (connection.scimTokenHash !== null && state.scimTokens.get(connection.scimTokenHash) === connection.id)
    state.scimTokens.delete(connection.scimTokenHash);
}

/** Whether one of `domains` is named by a connection other than `connectionId`. */
const domainTaken = (state: SsoState, domains: string[], connectionId: string) =>
  domains.some((domain) => {
    const owner = state.domainOwners.get(domain);
    return owner !== undefined && owner !== connectionId;
  });

/** The connection of this organization with this id. */
function ownConnection(state: SsoState, organizationId: string, id: string) {
  const connection = state.connections.get(id);
  return connection?.organizationId === organizationId ? connection : undefined;
}

function removeConnection(state: SsoState, connection: SsoConnectionRecord): void {
  unindex(state, connection);
  state.connections.delete(connection.id);
  state.assertions.delete(connection.id);
}

/** The atomic step of `updateSsoConnection` (no await inside). */
function update(
  state: SsoState,
  organizationId: string,
  id: string,
  patch: SsoConnectionPatch & { updatedAt: number },
): SsoConnectionRecord | null | "domain-taken" {
  const connection = ownConnection(state, organizationId, id);
  if (connection === undefined) return null;
  if (patch.domains !== undefined && domainTaken(state, patch.domains, id)) return "domain-taken";
  const changes = Object.entries(clonePlain(patch)).filter(([, value]) => value !== undefined);
  const updated: SsoConnectionRecord = { ...connection, ...Object.fromEntries(changes) };
  unindex(state, connection);
  state.connections.set(id, updated);
  index(state, updated);
  return clonePlain(updated);
}

/** `a` before `b` in code unit order of their domains. */
const byDomain = (a: SsoDomainRecord, b: SsoDomainRecord) =>
  a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0;

function connectionMethods(state: SsoState) {
  return {
    async createSsoConnection(connection: SsoConnectionRecord) {
      if (state.connections.has(connection.id))
        throw new Error(`createSsoConnection: the id ${connection.id} is taken`);
      if (domainTaken(state, connection.domains, connection.id)) return "domain-taken" as const;
      const stored = clonePlain(connection);
      state.connections.set(stored.id, stored);
      index(state, stored);
      return "created" as const;
    },
    async findSsoConnection(id: string) {
      return clonePlain(state.connections.get(id) ?? null);
    },
    async listSsoConnections(organizationId: string) {
      const listed = [...state.connections.values()].filter((one) => one.organizationId === organizationId);
      return listed.sort((a, b) => a.createdAt - b.createdAt).map(clonePlain);
    },
    async updateSsoConnection(
      organizationId: string,
      id: string,
      patch: SsoConnectionPatch & { updatedAt: number },
    ) {
      return update(state, organizationId, id, patch);
    },
    async deleteSsoConnection(organizationId: string, id: string) {
      const connection = ownConnection(state, organizationId, id);
      if (connection === undefined) return false;
      removeConnection(state, connection);
      return true;
    },
    async findSsoConnectionByScimTokenHash(tokenHash: string) {
      const id = state.scimTokens.get(tokenHash);
      return clonePlain((id === undefined ? undefined : state.connections.get(id)) ?? null);
    },
    async findSsoRoute(domain: string) {
      const id = state.domainOwners.get(domain);
      const connection = id === undefined ? undefined : state.connections.get(id);
      if (connection === undefined) return null;
      const claim = state.claims.get(domain)?.get(connection.organizationId);
      if (claim === undefined || claim.verifiedAt === null) return null;
      return clonePlain({ connection, domain: claim });
    },
  } satisfies Partial<SsoStore>;
}

/** The atomic step of `verifySsoDomain` (no await inside). */
function verify(state: SsoState, organizationId: string, domain: string, at: number) {
  const claims = state.claims.get(domain);
  const claim = claims?.get(organizationId);
  if (claims === undefined || claim === undefined) return "not-found" as const;
  if (claim.verifiedAt !== null) return clonePlain(claim);
  for (const other of claims.values()) if (other.verifiedAt !== null) return "taken" as const;
  claim.verifiedAt = at;
  return clonePlain(claim);
}

function domainMethods(state: SsoState) {
  return {
    async claimSsoDomain(domain: SsoDomainRecord) {
      const claims = state.claims.get(domain.domain) ?? new Map<string, SsoDomainRecord>();
      if (claims.has(domain.organizationId)) return "exists" as const;
      claims.set(domain.organizationId, clonePlain(domain));
      state.claims.set(domain.domain, claims);
      return "created" as const;
    },
    async listSsoDomains(organizationId: string) {
      const listed: SsoDomainRecord[] = [];
      for (const claims of state.claims.values()) {
        const claim = claims.get(organizationId);
        if (claim !== undefined) listed.push(clonePlain(claim));
      }
      return listed.sort(byDomain);
    },
    async findSsoDomain(organizationId: string, domain: string) {
      return clonePlain(state.claims.get(domain)?.get(organizationId) ?? null);
    },
    async verifySsoDomain(organizationId: string, domain: string, at: number) {
      return verify(state, organizationId, domain, at);
    },
    async releaseSsoDomain(organizationId: string, domain: string) {
      const claims = state.claims.get(domain);
      if (!claims?.delete(organizationId)) return false;
      if (claims.size === 0) state.claims.delete(domain);
      return true;
    },
  } satisfies Partial<SsoStore>;
}

/** Removes the used assertions past their `expiresAt`, at most once a minute (at once when the clock went back). */
function sweepAssertions(state: SsoState, now: number): void {
  if (state.sweptAt !== null && now >= state.sweptAt && now - state.sweptAt < SWEEP_EVERY_MS) return;
  state.sweptAt = now;
  for (const [connectionId, used] of state.assertions) {
    for (const [assertionId, expiresAt] of used) if (expiresAt <= now) used.delete(assertionId);
    if (used.size === 0) state.assertions.delete(connectionId);
  }
}

/** The atomic step of `useSsoAssertion` (no await inside). */
function useAssertion(state: SsoState, connectionId: string, assertionId: string, expiresAt: number) {
  const now = state.clock.now();
  sweepAssertions(state, now);
  const used = state.assertions.get(connectionId) ?? new Map<string, number>();
  const until = used.get(assertionId);
  if (until !== undefined && until > now) return false;
  used.set(assertionId, expiresAt);
  state.assertions.set(connectionId, used);
  return true;
}

/** Removes the organization's connections (and their used assertions) and claims. */
function removeOrganization(state: SsoState, organizationId: string): void {
  for (const connection of [...state.connections.values()])
    if (connection.organizationId === organizationId) removeConnection(state, connection);
  for (const [domain, claims] of state.claims) {
    claims.delete(organizationId);
    if (claims.size === 0) state.claims.delete(domain);
  }
}

export interface MemorySsoStoreOptions {
  /** The clock used assertions expire by; tests pass a fake clock. Default: the system clock. */
  clock?: Clock;
}

/**
 * Enterprise sign-in's connections, domain claims and used assertions in memory (one process:
 * every instance of a deployment must share a store, so this one is for development and tests).
 * Each method runs without an await inside, so each is one atomic step: of concurrent creates,
 * updates or verifications naming one domain, or uses of one assertion, exactly one wins. Records
 * are copied in and out. A used assertion is forgotten once `clock` passes its `expiresAt` (swept
 * lazily, at most once a minute, by the calls of `useSsoAssertion`). A connection id already
 * stored makes `createSsoConnection` reject (ids are random: it is a caller's bug).
 */
export function createMemorySsoStore(options: MemorySsoStoreOptions = {}): SsoStore {
  const state: SsoState = {
    clock: options.clock ?? systemClock,
    connections: new Map(),
    domainOwners: new Map(),
    scimTokens: new Map(),
    claims: new Map(),
    assertions: new Map(),
    sweptAt: null,
  };
  return {
    ...connectionMethods(state),
    ...domainMethods(state),
    async useSsoAssertion(connectionId: string, assertionId: string, expiresAt: number) {
      return useAssertion(state, connectionId, assertionId, expiresAt);
    },
    async removeOrganizationSso(organizationId: string) {
      removeOrganization(state, organizationId);
    },
  };
}
