import { randomBytes } from "node:crypto";
import {
  generateServiceProviderMetadata,
  type Profile,
  SAML,
  type SamlConfig,
  SamlStatusError,
  ValidateInResponseTo,
} from "@node-saml/node-saml";
import type { SamlConnectionSettings } from "@portcullis/core";

/**
 * The SAML 2.0 service provider of an organization's connection (docs/sso.md): the AuthnRequest
 * that sends a browser to the identity provider, the check of the response it posts back to the
 * ACS, and the SP metadata. Pure of HTTP and storage: the caller binds the request ID to the
 * browser, remembers used assertion IDs, and maps a `SamlRefusal` to its answer.
 *
 * Every XML signature and XML parse is @node-saml/node-saml's (xml-crypto, @xmldom/xmldom, xml2js);
 * this module only reads the assertion node-saml hands back, which is the canonical form of the
 * bytes a signature covers, never the posted document.
 */

const EMAIL_FORMAT = "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress";
const BEARER = "urn:oasis:names:tc:SAML:2.0:cm:bearer";
/** SAML bindings §3.4.3: RelayState MUST NOT exceed 80 bytes. */
const MAX_RELAY_STATE_BYTES = 80;
/** How long an AuthnRequest may be answered by default (`requestTtlMs`). */
const DEFAULT_REQUEST_TTL_MS = 10 * 60_000;

/** Why a SAML response was refused; stable, meant for logs and for mapping to an error code. */
export type SamlRefusalReason =
  /** Not a SAML response with exactly one readable assertion (bad base64, not XML, no NameID…). */
  | "malformed"
  /** The identity provider answered with a non-success status (e.g. the user cancelled). */
  | "status"
  /** No valid signature by one of the connection's certificates (or a wrapping attempt). */
  | "signature"
  /** The Response is validly signed but the assertion inside it is not (see `validateSamlResponse`). */
  | "unsigned-assertion"
  /** The assertion's Issuer is not the connection's entity id. */
  | "issuer"
  /** The assertion is not for this service provider (AudienceRestriction). */
  | "audience"
  /** The bearer SubjectConfirmationData's Recipient is not this ACS URL. */
  | "recipient"
  /** Past NotOnOrAfter (Conditions or SubjectConfirmationData), beyond the skew. */
  | "expired"
  /** Before NotBefore, beyond the skew. */
  | "not-yet-valid"
  /** InResponseTo is not the request this browser started (or present when none was expected). */
  | "in-response-to";

/** A SAML response that must not sign anyone in; `reason` says why, `cause` holds node-saml's error. */
export class SamlRefusal extends Error {
  override readonly name = "SamlRefusal";
  readonly reason: SamlRefusalReason;

  constructor(reason: SamlRefusalReason, detail: string, options?: { cause?: unknown }) {
    super(`SAML response refused (${reason}): ${detail}`, options);
    this.reason = reason;
  }
}

/** What `samlAuthnRequest` needs. */
export interface SamlAuthnRequestInput {
  connection: SamlConnectionSettings;
  /** This service provider's entity id (the AuthnRequest's Issuer, the assertion's audience). */
  spEntityId: string;
  /** The ACS URL the identity provider must post the response to. */
  acsUrl: string;
  /** Opaque to the IdP, echoed back with the response; at most 80 bytes (SAML bindings §3.4.3). */
  relayState: string;
  /** ms since the epoch; defaults to `Date.now()`. Only `expiresAt` depends on it. */
  now?: number;
  /** How long the request may be answered; default 10 minutes. */
  requestTtlMs?: number;
  /** Asks the identity provider to authenticate the user anew (`ForceAuthn="true"`): a step-up. */
  forceAuthn?: boolean;
}

/** An AuthnRequest to send the browser to. */
export interface SamlAuthnRequest {
  /** `connection.ssoUrl` with `SAMLRequest` (deflated, base64) and `RelayState`: HTTP-Redirect binding. */
  url: string;
  /** The request's ID: store it bound to this browser, pass it as `expectedRequestId` at the ACS. */
  requestId: string;
  /** ms since the epoch after which the stored request should be forgotten. */
  expiresAt: number;
}

/**
 * Builds an unsigned AuthnRequest for the connection (HTTP-Redirect binding, response wanted by
 * HTTP-POST at `acsUrl`), with a fresh random ID (160 bits). It asks for no particular NameID
 * format and no RequestedAuthnContext, so the IdP's own settings (MFA, passwordless, persistent
 * ids) never make it answer with an error. node-saml stamps IssueInstant with the wall clock.
 * Throws a `RangeError` when `relayState` is longer than 80 bytes.
 */
export async function samlAuthnRequest(input: SamlAuthnRequestInput): Promise<SamlAuthnRequest> {
  if (Buffer.byteLength(input.relayState) > MAX_RELAY_STATE_BYTES) {
    throw new RangeError(`relayState must be at most ${MAX_RELAY_STATE_BYTES} bytes`);
  }
  const requestId = `_${randomBytes(20).toString("hex")}`;
  const saml = new SAML({
    ...baseConfig(input),
    entryPoint: input.connection.ssoUrl,
    generateUniqueId: () => requestId,
    identifierFormat: null,
    disableRequestedAuthnContext: true,
    forceAuthn: input.forceAuthn ?? false,
  });
  const url = await saml.getAuthorizeUrlAsync(input.relayState, undefined, {});
  const now = input.now ?? Date.now();
  return { url, requestId, expiresAt: now + (input.requestTtlMs ?? DEFAULT_REQUEST_TTL_MS) };
}

/** What `validateSamlResponse` needs. */
export interface ValidateSamlResponseInput {
  connection: SamlConnectionSettings;
  spEntityId: string;
  acsUrl: string;
  /** The `SAMLResponse` field of the POST to the ACS, as posted (base64). */
  samlResponse: string;
  /** The ID of the request this browser started, or null to accept an IdP-initiated response. */
  expectedRequestId: string | null;
  /** ms since the epoch: the time every NotBefore/NotOnOrAfter is compared with. */
  now: number;
  /** Clock difference tolerated with the IdP, ms (≥ 0), applied to every time bound. */
  skewMs: number;
}

/** A verified assertion: who the identity provider says signed in. */
export interface SamlAssertion {
  /** The assertion's ID: record it until `expiresAt` and refuse it if seen again (replay). */
  assertionId: string;
  /** The signed NameID's whole text (comments inside it are not a split point), trimmed. */
  nameId: string;
  nameIdFormat: string | null;
  /**
   * The address the IdP asserts, as given: the first email attribute (`email`, `mail`, the
   * `…/claims/emailaddress` claim, `urn:oid:0.9.2342.19200300.100.1.3`, …), else the NameID when
   * its format is emailAddress, else null. Whether its domain may sign in is the caller's check.
   */
  email: string | null;
  /** Single-valued attributes as a string, multi-valued as an array; complex values are left out. */
  attributes: Record<string, string | string[]>;
  /** ms: when the identity provider authenticated the user (the AuthnStatement's AuthnInstant), if given. */
  authnInstant: number | null;
  /** The AuthnStatement's SessionIndex, if any. */
  sessionIndex: string | null;
  /** The AuthnStatement's SessionNotOnOrAfter (ms), if any: a session should not outlive it. */
  sessionNotOnOrAfter: number | null;
  /** ms: the last time this assertion could be accepted (earliest NotOnOrAfter + skew). */
  expiresAt: number;
  /** The request it answers (the bearer confirmation's InResponseTo), null when IdP-initiated. */
  inResponseTo: string | null;
}

/**
 * Checks a posted SAMLResponse and returns its assertion, or throws a `SamlRefusal`.
 *
 * - Signature (node-saml): `wantAssertionsSigned: true, wantAuthnResponseSigned: false`. The
 *   assertion must carry its own valid signature by one of `connection.certificates`; a signature
 *   on the Response is optional (Okta, Entra ID and AD FS sign only the assertion by default), and
 *   a signed Response around an unsigned assertion is refused ("unsigned-assertion"), so the
 *   identity is always covered by a signature over the assertion itself, wherever it travels.
 *   More than one assertion, an ID shared by two elements, or a signature not enveloped by the
 *   element it references (signature wrapping) is refused ("signature").
 * - Issuer = `connection.entityId`, Audience = `spEntityId` (node-saml), a bearer
 *   SubjectConfirmationData with Recipient = `acsUrl`, NotOnOrAfter and InResponseTo =
 *   `expectedRequestId` (absent when it is null); the Response's InResponseTo, when present, too.
 * - Time: node-saml reads the wall clock; the SAML subclass below passes `now` to its check
 *   instead, so Conditions and the confirmation are judged at `now` ± `skewMs`.
 * - Not checked here: replay (the caller records `assertionId` until `expiresAt`). The Response's
 *   Destination is not read (no second XML parser): the signed Recipient binds the ACS URL.
 */
export async function validateSamlResponse(input: ValidateSamlResponseInput): Promise<SamlAssertion> {
  if (!Number.isFinite(input.skewMs) || input.skewMs < 0) throw new RangeError("skewMs must be ≥ 0");
  if (input.connection.certificates.length === 0) {
    throw new SamlRefusal("signature", "the connection has no certificate");
  }
  const { profile, responseInResponseTo } = await verifySignedAssertion(input);
  return readAssertion(profile, responseInResponseTo, input);
}

/** The SP metadata (EntityDescriptor) to give the IdP: entity id, ACS (HTTP-POST), email NameID. */
export function samlSpMetadata(input: { spEntityId: string; acsUrl: string }): string {
  return generateServiceProviderMetadata({
    issuer: input.spEntityId,
    callbackUrl: input.acsUrl,
    identifierFormat: EMAIL_FORMAT,
    wantAssertionsSigned: true,
  });
}

function baseConfig(input: { connection: SamlConnectionSettings; spEntityId: string; acsUrl: string }) {
  return {
    issuer: input.spEntityId,
    callbackUrl: input.acsUrl,
    idpCert: input.connection.certificates,
    audience: input.spEntityId,
    validateInResponseTo: ValidateInResponseTo.never,
  } satisfies SamlConfig;
}

/**
 * node-saml's SAML, judging time at an injected instant (its own checks call
 * `checkTimestampsValidityError` with `new Date()`), and remembering the Response's InResponseTo
 * it reads before any signature check (validateInResponseTo "never": this module checks it).
 */
class ClockedSaml extends SAML {
  readonly #nowMs: number;
  responseInResponseTo: string | null = null;

  constructor(config: SamlConfig, nowMs: number) {
    super(config);
    this.#nowMs = nowMs;
  }

  protected override checkTimestampsValidityError(
    _wallClockMs: number,
    notBefore: string,
    notOnOrAfter: string,
    maxTimeLimitMs?: number,
  ): Error | null {
    return super.checkTimestampsValidityError(this.#nowMs, notBefore, notOnOrAfter, maxTimeLimitMs);
  }

  protected override async validateInResponseTo(inResponseTo: string | null): Promise<void> {
    this.responseInResponseTo = inResponseTo;
    await super.validateInResponseTo(inResponseTo);
  }
}

function verifierFor(input: ValidateSamlResponseInput, signatures: "assertion" | "response"): ClockedSaml {
  return new ClockedSaml(
    {
      ...baseConfig(input),
      acceptedClockSkewMs: input.skewMs,
      wantAssertionsSigned: signatures === "assertion",
      wantAuthnResponseSigned: signatures === "response",
    },
    input.now,
  );
}

async function verifySignedAssertion(
  input: ValidateSamlResponseInput,
): Promise<{ profile: Profile; responseInResponseTo: string | null }> {
  const saml = verifierFor(input, "assertion");
  let profile: Profile | null;
  try {
    ({ profile } = await saml.validatePostResponseAsync({ SAMLResponse: input.samlResponse }));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new SamlRefusal(await reasonOf(error, message, input), message, { cause: error });
  }
  if (!profile) throw new SamlRefusal("malformed", "no assertion (a logout or NoPassive response)");
  return { profile, responseInResponseTo: saml.responseInResponseTo };
}

/** node-saml's errors (5.1.0 messages), by what they mean. */
const REASON_BY_MESSAGE: [RegExp, SamlRefusalReason][] = [
  [/signature/i, "signature"],
  [/^SAML assertion expired/, "expired"],
  [/^SAML assertion not yet valid/, "not-yet-valid"],
  [/audience/i, "audience"],
];

async function reasonOf(error: unknown, message: string, input: ValidateSamlResponseInput) {
  if (error instanceof SamlStatusError) return "status";
  // The assertion has no valid signature: "unsigned-assertion" when the Response around it has one.
  if (message === "Invalid signature") {
    try {
      await verifierFor(input, "response").validatePostResponseAsync({ SAMLResponse: input.samlResponse });
      return "unsigned-assertion";
    } catch (again) {
      const responseSigned = !(again instanceof Error && again.message === "Invalid document signature");
      return responseSigned ? "unsigned-assertion" : "signature";
    }
  }
  return REASON_BY_MESSAGE.find(([pattern]) => pattern.test(message))?.[1] ?? "malformed";
}

/** An element as xml2js gives it (`$` attributes, `_` text, children by local name, in arrays). */
type XmlNode = { [key: string]: unknown };

function isNode(value: unknown): value is XmlNode {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function children(node: XmlNode | undefined, name: string): XmlNode[] {
  const value = node?.[name];
  return Array.isArray(value) ? value.filter(isNode) : [];
}

/** The single child `name`, or undefined when there is none or more than one. */
function only(node: XmlNode | undefined, name: string): XmlNode | undefined {
  const list = children(node, name);
  return list.length === 1 ? list[0] : undefined;
}

function attribute(node: XmlNode | undefined, name: string): string | undefined {
  const attributes = node?.$;
  const value = isNode(attributes) ? attributes[name] : undefined;
  return typeof value === "string" ? value : undefined;
}

function text(node: XmlNode | undefined): string | undefined {
  const value = node?._;
  return typeof value === "string" ? value.trim() : undefined;
}

/** ms since the epoch of an xs:dateTime; null when absent; a refusal when unreadable. */
function timeOf(value: string | undefined, label: string): number | null {
  if (value === undefined) return null;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new SamlRefusal("malformed", `${label} is not a date`);
  return ms;
}

function readAssertion(
  profile: Profile,
  responseInResponseTo: string | null,
  input: ValidateSamlResponseInput,
): SamlAssertion {
  const assertion = profile.getAssertion?.().Assertion;
  if (!isNode(assertion)) throw new SamlRefusal("malformed", "no assertion");
  const assertionId = attribute(assertion, "ID");
  if (!assertionId) throw new SamlRefusal("malformed", "the assertion has no ID");
  const issuer = text(only(assertion, "Issuer"));
  if (issuer !== input.connection.entityId) {
    throw new SamlRefusal("issuer", `issuer ${JSON.stringify(issuer)} is not the connection's`);
  }
  const subject = only(assertion, "Subject");
  const nameIdNode = only(subject, "NameID");
  const nameId = text(nameIdNode);
  if (!nameId) throw new SamlRefusal("malformed", "the assertion has no NameID");
  const confirmation = bearerConfirmation(subject, input);
  if (responseInResponseTo !== null && responseInResponseTo !== input.expectedRequestId) {
    throw new SamlRefusal("in-response-to", "the Response answers another request");
  }
  const conditionsEnd = timeOf(attribute(only(assertion, "Conditions"), "NotOnOrAfter"), "NotOnOrAfter");
  const authn = children(assertion, "AuthnStatement")[0];
  const nameIdFormat = attribute(nameIdNode, "Format") ?? null;
  const attributes = attributesOf(profile.attributes);
  return {
    assertionId,
    nameId,
    nameIdFormat,
    email: emailOf(attributes) ?? (nameIdFormat === EMAIL_FORMAT ? nameId : null),
    attributes,
    authnInstant: timeOf(attribute(authn, "AuthnInstant"), "AuthnInstant"),
    sessionIndex: attribute(authn, "SessionIndex") ?? null,
    sessionNotOnOrAfter: timeOf(attribute(authn, "SessionNotOnOrAfter"), "SessionNotOnOrAfter"),
    expiresAt: Math.min(confirmation.notOnOrAfter, conditionsEnd ?? Number.POSITIVE_INFINITY) + input.skewMs,
    inResponseTo: confirmation.inResponseTo,
  };
}

/**
 * The bearer SubjectConfirmation this response satisfies (SAML profiles §4.1.4.2): Recipient =
 * ACS URL, NotOnOrAfter present and not past, NotBefore (if any) reached, InResponseTo = the
 * expected request. When none does, the refusal names what the first one lacks.
 */
function bearerConfirmation(
  subject: XmlNode | undefined,
  input: ValidateSamlResponseInput,
): { notOnOrAfter: number; inResponseTo: string | null } {
  const bearers = children(subject, "SubjectConfirmation").filter((c) => attribute(c, "Method") === BEARER);
  let firstRefusal: SamlRefusal | undefined;
  for (const bearer of bearers) {
    try {
      return checkConfirmation(only(bearer, "SubjectConfirmationData"), input);
    } catch (error) {
      if (!(error instanceof SamlRefusal)) throw error;
      firstRefusal ??= error;
    }
  }
  throw firstRefusal ?? new SamlRefusal("malformed", "the assertion has no bearer subject confirmation");
}

function checkConfirmation(
  data: XmlNode | undefined,
  input: ValidateSamlResponseInput,
): { notOnOrAfter: number; inResponseTo: string | null } {
  if (attribute(data, "Recipient") !== input.acsUrl) {
    throw new SamlRefusal("recipient", "the Recipient is not this ACS URL");
  }
  const notOnOrAfter = timeOf(attribute(data, "NotOnOrAfter"), "NotOnOrAfter");
  if (notOnOrAfter === null) throw new SamlRefusal("malformed", "the confirmation has no NotOnOrAfter");
  if (input.now - input.skewMs >= notOnOrAfter)
    throw new SamlRefusal("expired", "the confirmation has expired");
  const notBefore = timeOf(attribute(data, "NotBefore"), "NotBefore");
  if (notBefore !== null && input.now + input.skewMs < notBefore) {
    throw new SamlRefusal("not-yet-valid", "the confirmation is not yet valid");
  }
  const inResponseTo = attribute(data, "InResponseTo") ?? null;
  if (inResponseTo !== input.expectedRequestId) {
    throw new SamlRefusal("in-response-to", "InResponseTo is not the request this browser started");
  }
  return { notOnOrAfter, inResponseTo };
}

const EMAIL_ATTRIBUTES = [
  "email",
  "mail",
  "emailAddress",
  "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress",
  "urn:oid:0.9.2342.19200300.100.1.3",
  "urn:oid:1.2.840.113549.1.9.1",
];

function emailOf(attributes: Record<string, string | string[]>): string | null {
  for (const name of EMAIL_ATTRIBUTES) {
    const value = attributes[name];
    if (typeof value === "string" && value.trim() !== "") return value.trim();
  }
  return null;
}

/** node-saml's `profile.attributes`, keeping string values only (own properties, no prototype keys). */
function attributesOf(raw: unknown): Record<string, string | string[]> {
  if (!isNode(raw)) return {};
  const entries: [string, string | string[]][] = [];
  for (const [name, value] of Object.entries(raw)) {
    if (typeof value === "string") entries.push([name, value]);
    else if (Array.isArray(value))
      entries.push([name, value.filter((v): v is string => typeof v === "string")]);
  }
  return Object.fromEntries(entries);
}
