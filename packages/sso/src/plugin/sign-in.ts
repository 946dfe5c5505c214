import {
  AuthError,
  isAuthError,
  normalizeEmail,
  type RouteInput,
  type SsoConnectionRecord,
} from "@portcullis/core";
import { SamlRefusal, samlAuthnRequest, samlSpMetadata, validateSamlResponse } from "../saml/saml-sp.js";
import { startBody } from "./bodies.js";
import {
  hashOf,
  jsonAnswer,
  randomToken,
  redirect,
  type SsoContext,
  serviceProvider,
  stored,
} from "./context.js";
import { domainName, invalid, objectBody, text } from "./input.js";
import { oidcCallbackUrl, relyingPartyOf } from "./oidc.js";
import { param, ssoRoute } from "./route.js";

/** The single-use token purposes: a started request (RelayState), and a checked answer on its way to the finish. */
export const REQUEST = "sso-request";
const FINISH = "sso-finish";
/** How long the checked answer waits for the browser's redirect to the finish, ms. */
const FINISH_TTL_MS = 60_000;

/** A `returnTo` as the app gave it: a path on `appOrigin` (`/` then not `/`), else the default page. */
const returnPath = (ctx: SsoContext, value: unknown) =>
  typeof value === "string" && /^\/(?![/\\])/.test(value) && value.length <= 2048
    ? value
    : ctx.afterSignInPath;

/** Where identity providers put a display name, and a given name and surname (Okta's, Entra ID's, LDAP's). */
const CLAIMS = "http://schemas.xmlsoap.org/ws/2005/05/identity/claims";
const DISPLAY_NAMES = [
  "displayName",
  "http://schemas.microsoft.com/identity/claims/displayname",
  "urn:oid:2.16.840.1.113730.3.1.241",
];
const GIVEN_NAMES = ["firstName", "givenName", `${CLAIMS}/givenname`, "urn:oid:2.5.4.42"];
const SURNAMES = ["lastName", "surname", "sn", `${CLAIMS}/surname`, "urn:oid:2.5.4.4"];

/** The user's name an assertion's attributes give: a display name, else given name and surname; null when none. */
function nameOf(attributes: Record<string, string | string[]>): string | null {
  const first = (names: string[]) =>
    names
      .map((key) => attributes[key])
      .find((value): value is string => typeof value === "string" && value !== "");
  return first(DISPLAY_NAMES) ?? ([first(GIVEN_NAMES), first(SURNAMES)].filter(Boolean).join(" ") || null);
}

/** The connection of the path when it is a SAML one; null otherwise. */
async function samlConnection(ctx: SsoContext, input: RouteInput): Promise<SsoConnectionRecord | null> {
  const connection = await stored(() => ctx.store.findSsoConnection(param(input, "connectionId")));
  return connection?.saml ? connection : null;
}

/** Back to the app's sign-in page with `?error=<code>` (the binding cookie cleared). */
export const failure = (ctx: SsoContext, code: string) =>
  redirect(ctx.kit.appUrl("/login", { error: code }), [ctx.kit.clearRequestCookie()]);

/**
 * A refused answer to `request`: a step-up's goes back to the page it started on (`returnTo`)
 * with `?error=<code>`, since the user is still signed in there and that page says what went
 * wrong; a sign-in's, or an answer to no known request, goes to the sign-in page (`failure`).
 */
export const refused = (
  ctx: SsoContext,
  code: string,
  request: { returnTo: string; stepUp?: StepUpOf | null | undefined } | null,
) =>
  request?.stepUp
    ? redirect(ctx.kit.appUrl(request.returnTo, { error: code }), [ctx.kit.clearRequestCookie()])
    : failure(ctx, code);

/** What `POST /sso/start` names: an address (`email`), or an organization by its slug (`organization`). */
type StartTarget = { domain: string } | { slug: string };

/** The body's `email` (its domain) or `organization` (a slug), one of the two; `VALIDATION_FAILED` otherwise. */
function startTarget(body: Record<string, unknown>): StartTarget {
  if (body.organization !== undefined && body.email === undefined) {
    const slug = text(body, "organization", 48);
    if (!/^[a-z0-9-]{2,48}$/.test(slug)) throw invalid("organization", "must be an organization's slug");
    return { slug };
  }
  const email = text(body, "email", 254).toLowerCase();
  return { domain: domainName(email.slice(email.lastIndexOf("@") + 1), "email") };
}

/**
 * The connection a start names: the one that signs in the address's domain (verified by its
 * organization), or the organization's oldest connection. Null when there is none (an
 * organization of that slug without one, or no such organization: the same answer).
 */
async function startConnection(ctx: SsoContext, target: StartTarget): Promise<SsoConnectionRecord | null> {
  if ("domain" in target)
    return (await stored(() => ctx.store.findSsoRoute(target.domain)))?.connection ?? null;
  const organizations = ctx.auth.options.stores.organizations;
  const find = organizations?.findOrganizationBySlug?.bind(organizations);
  const organization = find === undefined ? null : await stored(() => find(target.slug));
  if (organization === null) return null;
  const connections = await stored(() => ctx.store.listSsoConnections(organization.id));
  return connections[0] ?? null;
}

/** Where a start sends the browser, until when the request holds, and what its answer is checked against. */
interface StartedRequest {
  url: string;
  expiresAt: number;
  /** SAML's request ID, or OpenID Connect's PKCE verifier and nonce. */
  checks: { requestId: string } | { codeVerifier: string; nonce: string | null };
}

/** A SAML AuthnRequest (HTTP-Redirect binding) carrying `relayState`; `fresh` asks for ForceAuthn. */
async function samlStart(
  ctx: SsoContext,
  connection: SsoConnectionRecord,
  relayState: string,
  fresh: boolean,
) {
  if (!connection.saml) throw new AuthError("NOT_FOUND");
  const sp = serviceProvider(ctx, connection.id);
  const request = await samlAuthnRequest({
    connection: connection.saml,
    spEntityId: sp.entityId,
    acsUrl: sp.acsUrl,
    relayState,
    now: ctx.now(),
    requestTtlMs: ctx.requestTtlMs,
    forceAuthn: fresh,
  });
  return { url: request.url, expiresAt: request.expiresAt, checks: { requestId: request.requestId } };
}

/**
 * An OpenID Connect authorization request (code flow, PKCE S256, a nonce) with `relayState` as its
 * `state`; `fresh` asks for a new login (`prompt=login`, `max_age=0`).
 */
async function oidcStart(
  ctx: SsoContext,
  connection: SsoConnectionRecord,
  state: string,
  fresh: boolean,
): Promise<StartedRequest> {
  const { url, codeVerifier, nonce } = await relyingPartyOf(ctx, connection).authorizationUrl({
    redirectUri: oidcCallbackUrl(ctx),
    state,
    fresh,
  });
  return { url, expiresAt: ctx.now() + ctx.requestTtlMs, checks: { codeVerifier, nonce } };
}

/**
 * `POST /sso/start { email, returnTo? }` or `{ organization, returnTo? }` (an organization's
 * slug): the connection that signs in the address's domain (a verified domain of the connection's
 * organization), or the organization's oldest connection (`NOT_FOUND` when there is none), and
 * the identity provider's URL to send the browser to. The request is bound to this browser: what
 * its answer is checked against (SAML's request ID; OpenID Connect's PKCE verifier and nonce) and
 * a hash of the binding cookie set here are kept under the RelayState (OpenID Connect's `state`),
 * so the answer is accepted only for this request, and the sign-in finishes only in the browser
 * that started it.
 */
function startRoute(ctx: SsoContext) {
  return ssoRoute(
    ctx,
    {
      method: "POST",
      path: "/sso/start",
      summary:
        "Start an enterprise sign-in for an address or an organization's slug: the identity provider's URL, and a binding cookie",
      auth: "none",
      errors: ["VALIDATION_FAILED", "NOT_FOUND", "RATE_LIMITED", "DATABASE_FAILURE"],
      body: startBody,
    },
    async (ctx, input) => {
      const body = objectBody(await input.body<unknown>());
      const target = startTarget(body);
      await ctx.auth.sso.countStart({ request: input.meta });
      const connection = await startConnection(ctx, target);
      if (connection === null) throw new AuthError("NOT_FOUND");
      return beginRequest(ctx, connection, { returnTo: body.returnTo, stepUp: null });
    },
  );
}

/** The session a step-up through a connection is for. */
export interface StepUpOf {
  userId: string;
  sessionId: string;
}

/** A step-up's session as a single-use token's data keeps it (flat: `stepUpUserId`, `stepUpSessionId`). */
export const stepUpFields = (stepUp: StepUpOf | null) => ({
  stepUpUserId: stepUp?.userId ?? null,
  stepUpSessionId: stepUp?.sessionId ?? null,
});

/** The step-up a token's data names (`stepUpFields`), or null for a sign-in. */
export function stepUpIn(data: Record<string, unknown> | undefined): StepUpOf | null {
  const userId = data?.stepUpUserId;
  const sessionId = data?.stepUpSessionId;
  return typeof userId === "string" && typeof sessionId === "string" ? { userId, sessionId } : null;
}

/**
 * Starts a request at the connection's identity provider (a fresh login for a step-up) and
 * keeps it under its RelayState or `state` (single-use, bound to this browser by the cookie set
 * here): `{ url }` to send the browser to.
 */
export async function beginRequest(
  ctx: SsoContext,
  connection: SsoConnectionRecord,
  { returnTo, stepUp }: { returnTo: unknown; stepUp: StepUpOf | null },
) {
  const relayState = randomToken();
  const binding = randomToken();
  const fresh = stepUp !== null;
  const request = connection.oidc
    ? await oidcStart(ctx, connection, relayState, fresh)
    : await samlStart(ctx, connection, relayState, fresh);
  await stored(() =>
    ctx.tokens.saveToken(
      {
        purpose: REQUEST,
        tokenHash: hashOf(relayState),
        userId: connection.id,
        expiresAt: request.expiresAt,
        data: {
          connectionId: connection.id,
          ...request.checks,
          binding: hashOf(binding),
          returnTo: returnPath(ctx, returnTo),
          ...stepUpFields(stepUp),
        },
      },
      ctx.requestTtlMs,
    ),
  );
  const cookie = ctx.kit.setRequestCookie(binding, Math.ceil(ctx.requestTtlMs / 1000));
  return jsonAnswer(200, { url: request.url }, [cookie]);
}

/** The request a RelayState names, taken once; null when it names none of this connection. */
async function takeRequest(ctx: SsoContext, connectionId: string, relayState: string) {
  if (relayState === "" || relayState.length > 80) return null;
  const record = await stored(() => ctx.tokens.consumeToken(REQUEST, hashOf(relayState)));
  if (!record || record.expiresAt <= ctx.now() || record.data?.connectionId !== connectionId) return null;
  const data = record.data as { requestId: string; binding: string; returnTo: string };
  return { ...data, stepUp: stepUpIn(record.data) };
}

/** How long ago a step-up's fresh login at the identity provider may have been (besides the skew). */
const FRESH_LOGIN_MS = 5 * 60_000;

/**
 * Whether an assertion answering a step-up shows a fresh login: its AuthnInstant no older than
 * five minutes (and the skew). An identity provider that ignored ForceAuthn and answered from its
 * own older session steps up nobody.
 */
function freshEnough(ctx: SsoContext, connectionId: string, authnInstant: number | null): boolean {
  if (authnInstant !== null && authnInstant >= ctx.now() - FRESH_LOGIN_MS - ctx.skewMs) return true;
  const reason = "stale-authn";
  ctx.auth.logger.warn({ event: "sso.assertion_refused", connectionId, reason }, "SAML step-up refused");
  return false;
}

/**
 * `POST /sso/saml/:connectionId/acs`: the identity provider's answer, posted by the browser from
 * the provider's site (so no cookie of ours comes along). The response is checked completely
 * (`validateSamlResponse`) against the request its RelayState names, or as an unasked one when
 * the connection allows IdP-initiated sign-in; its assertion is used once (`useSsoAssertion`).
 * The checked identity waits 60 s under a single-use token for the browser's 303 to the finish,
 * on our own site, where the binding cookie comes along. A refused answer to a step-up goes back
 * to the step-up's page (`refused`).
 */
function acsRoute(ctx: SsoContext) {
  return ssoRoute(
    ctx,
    {
      method: "POST",
      path: "/sso/saml/:connectionId/acs",
      summary:
        "SAML assertion consumer service (HTTP-POST binding): 303 to the finish, or to the app with ?error=",
      auth: "none",
      crossOrigin: true,
      errors: [],
    },
    async (ctx, input) => {
      const connection = await samlConnection(ctx, input);
      if (!connection?.saml) return failure(ctx, "NOT_FOUND");
      const form = await input.form();
      const request = await takeRequest(ctx, connection.id, form.get("RelayState") ?? "");
      if (request === null && !connection.idpInitiated) return failure(ctx, "SSO_ASSERTION_INVALID");
      const sp = serviceProvider(ctx, connection.id);
      let assertion: Awaited<ReturnType<typeof validateSamlResponse>>;
      try {
        assertion = await validateSamlResponse({
          connection: connection.saml,
          spEntityId: sp.entityId,
          acsUrl: sp.acsUrl,
          samlResponse: form.get("SAMLResponse") ?? "",
          expectedRequestId: request?.requestId ?? null,
          now: ctx.now(),
          skewMs: ctx.skewMs,
        });
      } catch (error) {
        if (!(error instanceof SamlRefusal)) throw error;
        ctx.auth.logger.warn(
          { event: "sso.assertion_refused", connectionId: connection.id, reason: error.reason },
          "SAML response refused",
        );
        return refused(ctx, "SSO_ASSERTION_INVALID", request);
      }
      if (request?.stepUp && !freshEnough(ctx, connection.id, assertion.authnInstant))
        return refused(ctx, "SSO_ASSERTION_INVALID", request);
      const first = await stored(() =>
        ctx.store.useSsoAssertion(connection.id, assertion.assertionId, assertion.expiresAt),
      );
      if (!first) {
        ctx.auth.logger.warn(
          { event: "sso.assertion_replayed", connectionId: connection.id },
          "SAML assertion replayed",
        );
        return refused(ctx, "SSO_ASSERTION_INVALID", request);
      }
      const finish = randomToken();
      await stored(() =>
        ctx.tokens.saveToken(
          {
            purpose: FINISH,
            tokenHash: hashOf(finish),
            userId: connection.id,
            expiresAt: ctx.now() + FINISH_TTL_MS,
            data: {
              connectionId: connection.id,
              subject: assertion.nameId,
              email: assertion.email,
              name: nameOf(assertion.attributes),
              binding: request?.binding ?? "",
              returnTo: request?.returnTo ?? ctx.afterSignInPath,
              ...stepUpFields(request?.stepUp ?? null),
            },
          },
          FINISH_TTL_MS,
        ),
      );
      return redirect(`${ctx.basePath}/sso/finish?token=${finish}`, [], 303);
    },
  );
}

/**
 * Whether the connection's SCIM directory has the signing-in user deactivated: the user of the
 * asserted address as its `userName`, else the user of that address's account. A deactivated
 * user stays out even when its identity provider still vouches for it (a sign-in would otherwise
 * make it a member again).
 */
async function deactivatedInDirectory(
  ctx: SsoContext,
  connectionId: string,
  email: string | null,
): Promise<boolean> {
  const { scim } = ctx;
  if (scim === undefined || email === null) return false;
  const byName = await stored(() => scim.findScimUserByUserName(connectionId, email));
  if (byName !== null) return !byName.active;
  const account = await stored(() => ctx.auth.options.stores.users.findByEmail(normalizeEmail(email)));
  if (account === null) return false;
  const byAccount = await stored(() => scim.findScimUserByUserId(connectionId, account.id));
  return byAccount !== null && !byAccount.active;
}

/**
 * `GET /sso/finish?token=`: takes the checked identity once; for a request this site started,
 * only in the browser holding its binding cookie; then `auth.sso.signIn` (the account, the
 * membership, the session or a 2FA challenge) and a 302 to the app with the session's cookies.
 */
function finishRoute(ctx: SsoContext) {
  return ssoRoute(
    ctx,
    {
      method: "GET",
      path: "/sso/finish",
      summary:
        "Finish an enterprise sign-in in the browser that started it: 302 to the app, signed in or with ?error=",
      auth: "none",
      errors: [],
    },
    async (ctx, input) => {
      const token = input.query.get("token") ?? "";
      const record =
        token.length === 43 ? await stored(() => ctx.tokens.consumeToken(FINISH, hashOf(token))) : null;
      const data = record?.data as
        | {
            connectionId: string;
            subject: string;
            email: string | null;
            name: string | null;
            binding: string;
            returnTo: string;
          }
        | undefined;
      if (!record || !data || record.expiresAt <= ctx.now()) return failure(ctx, "SSO_ASSERTION_INVALID");
      if (data.binding !== "" && !boundToThisBrowser(ctx, input, data.binding))
        return failure(ctx, "SSO_ASSERTION_INVALID");
      return signInToApp(ctx, input, { ...data, stepUp: stepUpIn(record.data) });
    },
  );
}

/** Whether this browser holds the binding cookie whose hash a started request kept. */
export function boundToThisBrowser(ctx: SsoContext, input: RouteInput, binding: string): boolean {
  const cookie = ctx.kit.requestCookie(input);
  return cookie !== undefined && hashOf(cookie) === binding;
}

/**
 * Signs in the identity a connection's provider vouched for (unless its directory deactivated
 * the user): `auth.sso.signIn`, or for a step-up `auth.sso.stepUp` of the session that asked;
 * then a 302 to `returnTo` on the app with the session's cookies (the step-up token's, or the 2FA
 * challenge's); when refused, to the sign-in page with `?error=<code>`, or for a step-up back to
 * `returnTo` with it (`refused`).
 */
export async function signInToApp(
  ctx: SsoContext,
  input: RouteInput,
  data: {
    connectionId: string;
    subject: string;
    email: string | null;
    name: string | null;
    returnTo: string;
    stepUp?: StepUpOf | null | undefined;
  },
) {
  try {
    if (await deactivatedInDirectory(ctx, data.connectionId, data.email))
      return refused(ctx, "SSO_USER_DEACTIVATED", data);
    const { connectionId, stepUp } = data;
    const identity = { subject: data.subject, email: data.email, name: data.name };
    const call = { request: input.withDevice() };
    const result = stepUp
      ? await ctx.auth.sso.stepUp(call, { connectionId, identity, ...stepUp })
      : await ctx.auth.sso.signIn(call, { connectionId, identity });
    return redirect(ctx.kit.appUrl(data.returnTo, ctx.kit.outcomeQuery(result)), [
      ctx.kit.clearRequestCookie(),
      ...ctx.kit.outcomeCookies(result),
    ]);
  } catch (error) {
    const code = isAuthError(error) ? error.code : "INTERNAL_ERROR";
    if (code === "DATABASE_FAILURE" || code === "INTERNAL_ERROR")
      ctx.auth.logger.error({ event: "sso.sign_in_failed", err: String(error) }, "enterprise sign-in failed");
    // A step-up whose session ended meanwhile has no signed-in page to go back to.
    return code === "AUTHENTICATION_REQUIRED" ? failure(ctx, code) : refused(ctx, code, data);
  }
}

/** `GET /sso/saml/:connectionId/metadata`: the service provider's metadata for the identity provider's administrator. */
function metadataRoute(ctx: SsoContext) {
  return ssoRoute(
    ctx,
    {
      method: "GET",
      path: "/sso/saml/:connectionId/metadata",
      summary: "The service provider's SAML metadata of a connection (XML)",
      auth: "none",
      crossOrigin: true,
      errors: ["NOT_FOUND"],
    },
    async (ctx, input) => {
      const connection = await samlConnection(ctx, input);
      if (!connection) throw new AuthError("NOT_FOUND");
      const sp = serviceProvider(ctx, connection.id);
      const xml = samlSpMetadata({ spEntityId: sp.entityId, acsUrl: sp.acsUrl });
      return {
        status: 200,
        headers: {
          "content-type": "application/samlmetadata+xml; charset=utf-8",
          "content-length": String(Buffer.byteLength(xml)),
        },
        cookies: [],
        body: xml,
      };
    },
  );
}

/** The SAML sign-in routes besides the start: the ACS, the finish, and the metadata. */
export const samlRoutes = (ctx: SsoContext) => [acsRoute(ctx), finishRoute(ctx), metadataRoute(ctx)];

export { startRoute };
