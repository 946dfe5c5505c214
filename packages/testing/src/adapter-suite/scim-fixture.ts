// The SCIM area's set-up: an auth with the caller's enterprise sign-in (`sso`) on the boot's own
// stores, whose SSO and SCIM stores fail on demand; an owner of one organization; a connection of
// it with its SCIM token and a verified domain, stored straight into the SSO store (the
// connection routes have tests of their own); and requests sent as an identity provider sends them.

import { createHash, randomBytes } from "node:crypto";
import type {
  AuthOptions,
  Clock,
  IdentityStore,
  OrganizationStore,
  Principal,
  ScimStore,
  SecurityEvent,
  SsoConnectionRecord,
  SsoStore,
} from "@portcullis/core";
import { expect } from "vitest";
import type { HttpReply } from "../http-client.js";
import { type AdapterSuiteOptions, type App, createBoot, type SignedIn } from "./fixture.js";

/** The enterprise sign-in the area's `sso` option is made of (it fits `createSso`'s options). */
export type SsoSuitePlugin = NonNullable<AuthOptions["sso"]>;

/** What the caller's `sso` builds the enterprise sign-in from (it fits `createSso`'s options). */
export interface ScimSuiteSetup {
  /** The boot's SSO store, failing while a test lists its methods (`ScimApp.failing`). */
  store: SsoStore;
  /** The boot's SCIM store, failing the same way. */
  scim: ScimStore;
  /** A DNS TXT lookup that finds no records: the area never reaches the machine's DNS. */
  resolveTxt?: (name: string) => Promise<string[][]>;
  /** True: the area's OpenID Connect provider runs on 127.0.0.1, over http. */
  allowPrivateNetworks?: boolean;
}

/** The options of `runScimAdapterSuite`. */
export interface ScimSuiteOptions extends Pick<AdapterSuiteOptions, "name" | "start"> {
  /** Fresh stores for each test, on `clock`, with `identities`, `organizations`, `sso` and `scim` among them. */
  createStores(clock: Clock): ReturnType<AdapterSuiteOptions["createStores"]> & {
    identities: IdentityStore;
    organizations: OrganizationStore;
    sso: SsoStore;
    scim: ScimStore;
  };
  /** The enterprise sign-in of `@portcullis/sso`, e.g. `(setup) => createSso(setup)`. */
  sso(setup: ScimSuiteSetup): SsoSuitePlugin;
}

/** A SCIM answer: the suite's reply, its body typed as SCIM's lists are. */
export type ScimReply = HttpReply & {
  body: Record<string, unknown> & { Resources?: Record<string, unknown>[] };
};

/** A SCIM request with one token: `body` a string is sent as is, anything else as JSON. */
export type ScimRequest = (method: string, path: string, body?: unknown) => Promise<ScimReply>;

/** The app with enterprise sign-in and SCIM, an owner, its organization and that one's SCIM connection. */
export interface ScimApp extends App {
  stores: ReturnType<ScimSuiteOptions["createStores"]>;
  /** Every security event the auth emitted, in order. */
  events: SecurityEvent[];
  /** Names of SSO and SCIM store methods that reject while listed here: a store that fails. */
  failing: Set<string>;
  /** owner@acme.test, signed in, its address verified: the owner of the organization Acme. */
  owner: SignedIn & { principal: Principal };
  /** Acme's id. */
  organizationId: string;
  /** Requests with the SCIM token of Acme's connection, whose domain `acme.test` is verified. */
  scim: ScimRequest;
}

/** `store`, whose methods named in `failing` reject while they are listed: a store that fails. */
export function failingWhileListed<S extends object>(store: S, failing: Set<string>): S {
  return new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) =>
        failing.has(String(name))
          ? Promise.reject(new Error(`the store is down (${String(name)})`))
          : value.apply(target, args);
    },
  });
}

/** A DNS lookup that finds no TXT record for any name (ENOTFOUND). */
const noTxtRecords = async (name: string): Promise<string[][]> => {
  throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: "ENOTFOUND" });
};

/**
 * The enterprise sign-in made when `createAuth` first reads it (its `store`, while validating the
 * options): by then the boot has made the stores it keeps its state in.
 */
function ssoOnStores(make: () => SsoSuitePlugin): SsoSuitePlugin {
  let made: SsoSuitePlugin | undefined;
  const plugin = () => {
    made ??= make();
    return made;
  };
  return {
    get store() {
      return plugin().store;
    },
    setUp: (auth) => plugin().setUp(auth),
  };
}

/** Boots a `ScimApp` for the running test, on fresh stores. */
export function bootScim(options: ScimSuiteOptions) {
  return async (): Promise<ScimApp> => {
    let stores: ReturnType<ScimSuiteOptions["createStores"]> | undefined;
    const failing = new Set<string>();
    const events: SecurityEvent[] = [];
    const boot = createBoot({
      ...options,
      createStores: (clock) => {
        stores = options.createStores(clock);
        return stores;
      },
    });
    const sso = ssoOnStores(() => {
      if (!stores) throw new Error("the enterprise sign-in was set up before the stores were made");
      return options.sso({
        store: failingWhileListed(stores.sso, failing),
        scim: failingWhileListed(stores.scim, failing),
        resolveTxt: noTxtRecords,
        allowPrivateNetworks: true,
      });
    });
    const app = await boot({
      organizations: { permissions: ["project:read"] },
      apiKeys: {},
      sso,
      onEvent: (event) => {
        events.push(event);
      },
    });
    if (!stores) throw new Error("the boot made no stores");
    const made = { ...app, stores };
    const signedUp = await app.signUp("owner@acme.test");
    await app.auth.host.markEmailVerified({}, signedUp.user.id);
    const principal = await app.auth.authenticate({ token: signedUp.accessToken });
    const owner = { ...signedUp, principal };
    const { organization } = await app.auth.organizations.create({ principal }, { name: "Acme" });
    const { token } = await scimConnection(made, organization.id, ["acme.test"]);
    return { ...made, events, failing, owner, organizationId: organization.id, scim: scimClient(app, token) };
  };
}

/**
 * A connection of `organizationId` for `domains` (claimed and verified here), with its SCIM
 * token, stored straight into the boot's SSO store: the connection, its token and its requests.
 */
export async function scimConnection(
  app: Pick<ScimApp, "auth" | "stores" | "call">,
  organizationId: string,
  domains: string[],
) {
  const { connection, token } = await storeScimConnection(app, organizationId, domains);
  return { connection, token, request: scimClient(app, token) };
}

/** `scimConnection` without its requests: the connection and its SCIM token, for a host's own requests. */
export async function storeScimConnection(
  app: Pick<ScimApp, "auth" | "stores">,
  organizationId: string,
  domains: string[],
) {
  const token = `scim_${randomBytes(32).toString("base64url")}`;
  const now = app.auth.clock.now();
  const connection: SsoConnectionRecord = {
    id: `conn-${randomBytes(6).toString("hex")}`,
    organizationId,
    type: "saml",
    saml: { entityId: "urn:test:idp", ssoUrl: "https://idp.example.test/sso", certificates: ["unused"] },
    oidc: null,
    defaultRole: "member",
    domains,
    ssoRequired: false,
    idpInitiated: false,
    scimTokenHash: createHash("sha256").update(token).digest("base64url"),
    createdAt: now,
    updatedAt: now,
  };
  const sso = app.stores.sso;
  for (const domain of domains) {
    const verificationToken = randomBytes(8).toString("hex");
    await sso.claimSsoDomain({ organizationId, domain, verificationToken, verifiedAt: null, createdAt: now });
    expect(await sso.verifySsoDomain(organizationId, domain, now)).not.toBe("taken");
  }
  expect(await sso.createSsoConnection(connection)).toBe("created");
  return { connection, token };
}

/** SCIM requests to the host app with `token`, as Okta and Entra ID send them (`application/scim+json`). */
export function scimClient(app: Pick<App, "call">, token: string | undefined): ScimRequest {
  return async (method, path, body) => {
    const headers: Record<string, string> = { accept: "application/scim+json" };
    if (token !== undefined) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers["content-type"] = "application/scim+json; charset=utf-8";
    const raw = body === undefined || typeof body === "string" ? body : JSON.stringify(body);
    const reply = await app.call(`SCIM ${method} ${path}`, method, `/api/auth/scim/v2${path}`, {
      headers,
      ...(raw === undefined ? {} : { raw }),
    });
    return reply as ScimReply;
  };
}

/** The user Okta's provisioning sends on `POST /Users` (Okta's SCIM 2.0 guide), for `email`. */
export const oktaUser = (email: string, active = true) => ({
  schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
  userName: email,
  name: { givenName: "Ada", familyName: "Lovelace" },
  emails: [{ primary: true, value: email, type: "work" }],
  displayName: "Ada Lovelace",
  locale: "en-US",
  externalId: `00u${randomBytes(6).toString("hex")}`,
  groups: [],
  password: "sent-by-okta-never-kept-1",
  active,
});

/** The user Microsoft Entra ID sends on `POST /Users` (its SCIM documentation), for `email`. */
export const entraUser = (email: string) => ({
  schemas: [
    "urn:ietf:params:scim:schemas:core:2.0:User",
    "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User",
  ],
  externalId: crypto.randomUUID(),
  userName: email,
  active: true,
  emails: [{ primary: true, type: "work", value: email }],
  meta: { resourceType: "User" },
  name: { formatted: "Grace Hopper", familyName: "Hopper", givenName: "Grace" },
  roles: [],
});

/** A group as Entra ID and Okta create one, of the users whose SCIM ids are `members`. */
export const groupBody = (displayName: string, members: string[] = []) => ({
  schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"],
  displayName,
  members: members.map((value) => ({ value })),
});

/** A PatchOp body of `operations`. */
export const patchOp = (...operations: Record<string, unknown>[]) => ({
  schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
  Operations: operations,
});

/** The SCIM id of the resource `reply` answered. */
export const idOf = (reply: ScimReply) => String(reply.body.id);

/** The role of the account of `email` in `organizationId` (Acme by default), null when no member. */
export async function roleOf(app: ScimApp, email: string, organizationId = app.organizationId) {
  const user = await app.stores.users.findByEmail(email);
  if (user === null) return null;
  return (await app.stores.organizations.findMembership(organizationId, user.id))?.membership.role ?? null;
}

/** A new session of the account of `email` (as the host's `sessions.create` makes one), and its access token. */
export async function sessionOf(app: App, email: string) {
  const user = await app.stores.users.findByEmail(email);
  if (user === null) throw new Error(`no account of ${email}`);
  const session = await app.auth.sessions.create({}, { userId: user.id });
  return { user, accessToken: session.accessToken };
}

/** Whether `token` (a session's access token or an API key) still signs its account in. */
export const signsIn = (app: App, token: string) =>
  app.auth.authenticate({ token }).then(
    () => true,
    () => false,
  );
