import { createHash, randomBytes } from "node:crypto";
import type { Auth, SsoConnectionRecord } from "@portcullis/core";
import { expect } from "vitest";
import type { SsoHost } from "./test-sso-server.js";

// The SCIM tests' set-up: a connection of the host's organization with its SCIM token (stored
// straight into the SSO store: the connection routes have tests of their own), a domain verified,
// and requests sent as an identity provider sends them.

/** What a SCIM request answered: its status, its body parsed (null when none), its headers. */
export interface ScimReply {
  status: number;
  body: Record<string, unknown> & { Resources?: Record<string, unknown>[] };
  headers: Headers;
}

/** A connection of `organizationId` for `domains` (verified here), with its SCIM token. */
export async function scimConnection(host: SsoHost, organizationId: string, domains: string[]) {
  const token = `scim_${randomBytes(32).toString("base64url")}`;
  const now = host.auth.clock.now();
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
  for (const domain of domains) {
    await host.stores.sso.claimSsoDomain({
      organizationId,
      domain,
      verificationToken: randomBytes(8).toString("hex"),
      verifiedAt: null,
      createdAt: now,
    });
    expect(await host.stores.sso.verifySsoDomain(organizationId, domain, now)).not.toBe("taken");
  }
  expect(await host.stores.sso.createSsoConnection(connection)).toBe("created");
  return { connection, token, request: scimClient(host, token) };
}

/** SCIM requests with `token`, as Okta and Entra ID send them (`application/scim+json`). */
export function scimClient(host: SsoHost, token: string | undefined) {
  return async (method: string, path: string, body?: unknown): Promise<ScimReply> => {
    const response = await fetch(`${host.api}/scim/v2${path}`, {
      method,
      headers: {
        accept: "application/scim+json",
        ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        ...(body === undefined ? {} : { "content-type": "application/scim+json; charset=utf-8" }),
      },
      ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null, headers: response.headers };
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

/** A PatchOp body of `operations`. */
export const patchOp = (...operations: Record<string, unknown>[]) => ({
  schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"],
  Operations: operations,
});

/** The role of the account of `email` in `organizationId`, null when no member. */
export async function roleOf(host: SsoHost, organizationId: string, email: string) {
  const user = await host.stores.users.findByEmail(email);
  if (user === null) return null;
  return (await host.stores.organizations.findMembership(organizationId, user.id))?.membership.role ?? null;
}

/** A new session of the account of `email` (as the host's `sessions.create` makes one), and its access token. */
export async function sessionOf(auth: Auth, email: string) {
  const user = await auth.options.stores.users.findByEmail(email);
  if (user === null) throw new Error(`no account of ${email}`);
  const session = await auth.sessions.create({}, { userId: user.id });
  return { user, accessToken: session.accessToken };
}
