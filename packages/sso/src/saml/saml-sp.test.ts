import { inflateRawSync } from "node:zlib";
import type { SamlConnectionSettings } from "@portcullis/core";
import { fetchSamlPostedForm, startTestSamlIdp, type TestSamlIdp } from "@portcullis/testing";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  SamlRefusal,
  type SamlRefusalReason,
  samlAuthnRequest,
  samlSpMetadata,
  type ValidateSamlResponseInput,
  validateSamlResponse,
} from "./saml-sp.js";
import {
  appendForgedAssertion,
  assertionOf,
  decodeResponse,
  injectNameIdComment,
  parseXml,
  setResponseAttribute,
  wrapSignedAssertion,
} from "./test-xml.js";

// Every response here is made by a real IdP (samlp, in a child process, over HTTP); the refusals
// that samlp cannot produce are edits of its genuine output, never a signature made by the test.

const SP = {
  entityId: "https://app.test/api/auth/sso/saml/conn_1/metadata",
  acsUrl: "https://app.test/api/auth/sso/saml/conn_1/acs",
};
const SKEW_MS = 60_000;
const SAML_ASSERTION = "urn:oasis:names:tc:SAML:2.0:assertion";

let idp: TestSamlIdp;
let connection: SamlConnectionSettings;

beforeAll(async () => {
  idp = await startTestSamlIdp(SP);
  connection = { entityId: idp.entityId, ssoUrl: idp.ssoUrl, certificates: [idp.certificate] };
});

afterAll(async () => {
  await idp?.close();
});

/** A request from the SP, answered by the IdP (with `knobs` saying how), as the ACS receives it. */
async function spInitiated(knobs: Record<string, string> = {}) {
  const request = await samlAuthnRequest({
    connection,
    spEntityId: SP.entityId,
    acsUrl: SP.acsUrl,
    relayState: "state-1",
  });
  return { request, form: await fetchSamlPostedForm(request.url, knobs) };
}

function validate(
  samlResponse: string,
  expectedRequestId: string | null,
  overrides: Partial<ValidateSamlResponseInput> = {},
) {
  return validateSamlResponse({
    connection,
    spEntityId: SP.entityId,
    acsUrl: SP.acsUrl,
    samlResponse,
    expectedRequestId,
    now: Date.now(),
    skewMs: SKEW_MS,
    ...overrides,
  });
}

/** The reason of the refusal `attempt` ends with (fails the test when it is accepted). */
async function refusalOf(attempt: Promise<unknown>): Promise<SamlRefusalReason> {
  const error = await attempt.then(
    () => expect.fail("the response was accepted"),
    (rejection: unknown) => rejection,
  );
  expect(error).toBeInstanceOf(SamlRefusal);
  return (error as SamlRefusal).reason;
}

/** The assertion's time bounds (ms), as the IdP stamped them. */
function timesOf(samlResponse: string) {
  const { assertion } = assertionOf(decodeResponse(samlResponse));
  const conditions = assertion.getElementsByTagNameNS(SAML_ASSERTION, "Conditions")[0];
  return {
    notBefore: Date.parse(conditions?.getAttribute("NotBefore") ?? ""),
    notOnOrAfter: Date.parse(conditions?.getAttribute("NotOnOrAfter") ?? ""),
  };
}

describe("samlAuthnRequest", () => {
  test("samlAuthnRequest - sends the browser to the IdP's SSO URL with a fresh request ID and the RelayState", async () => {
    const input = { connection, spEntityId: SP.entityId, acsUrl: SP.acsUrl, relayState: "state-1" };
    const first = await samlAuthnRequest({ ...input, now: 1_000_000, requestTtlMs: 5_000 });
    const second = await samlAuthnRequest(input);
    expect(first.requestId).toMatch(/^_[0-9a-f]{40}$/);
    expect(second.requestId).not.toBe(first.requestId);
    expect(first.expiresAt).toBe(1_005_000);
    const url = new URL(first.url);
    expect(`${url.origin}${url.pathname}`).toBe(idp.ssoUrl);
    expect(url.searchParams.get("RelayState")).toBe("state-1");
    const xml = inflateRawSync(Buffer.from(url.searchParams.get("SAMLRequest") ?? "", "base64")).toString();
    const request = parseXml(xml).documentElement;
    expect(request.localName).toBe("AuthnRequest");
    expect(request.getAttribute("ID")).toBe(first.requestId);
    expect(request.getAttribute("AssertionConsumerServiceURL")).toBe(SP.acsUrl);
    expect(request.getAttribute("Destination")).toBe(idp.ssoUrl);
    expect(request.getElementsByTagNameNS(SAML_ASSERTION, "Issuer")[0]?.textContent).toBe(SP.entityId);
  });

  test("samlAuthnRequest - refuses a RelayState longer than 80 bytes", async () => {
    const input = { connection, spEntityId: SP.entityId, acsUrl: SP.acsUrl };
    await expect(samlAuthnRequest({ ...input, relayState: "x".repeat(81) })).rejects.toThrow(RangeError);
    await expect(samlAuthnRequest({ ...input, relayState: "x".repeat(80) })).resolves.toBeDefined();
  });
});

describe("validateSamlResponse", () => {
  test("validateSamlResponse - accepts the IdP's answer to an AuthnRequest", async () => {
    const { request, form } = await spInitiated();
    expect(form.action).toBe(SP.acsUrl);
    expect(form.relayState).toBe("state-1");
    const assertion = await validate(form.samlResponse, request.requestId);
    expect(assertion).toMatchObject({
      nameId: "ada@example.com",
      nameIdFormat: "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress",
      email: "ada@example.com",
      inResponseTo: request.requestId,
      expiresAt: timesOf(form.samlResponse).notOnOrAfter + SKEW_MS,
      sessionNotOnOrAfter: null,
    });
    expect(assertion.assertionId).toMatch(/^_/);
    expect(assertion.attributes["http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name"]).toBe(
      "Ada Lovelace",
    );
  });

  test("validateSamlResponse - accepts an IdP-initiated response only when no request is expected", async () => {
    const form = await fetchSamlPostedForm(idp.idpInitiatedUrl, { user: "grace@example.com" });
    const assertion = await validate(form.samlResponse, null);
    expect(assertion).toMatchObject({ nameId: "grace@example.com", inResponseTo: null });
    expect(await refusalOf(validate(form.samlResponse, "_a-request-this-browser-started"))).toBe(
      "in-response-to",
    );
  });

  test("validateSamlResponse - refuses an answer to another request, or one when none is expected", async () => {
    const { form } = await spInitiated();
    const other = await samlAuthnRequest({
      connection,
      spEntityId: SP.entityId,
      acsUrl: SP.acsUrl,
      relayState: "",
    });
    expect(await refusalOf(validate(form.samlResponse, other.requestId))).toBe("in-response-to");
    expect(await refusalOf(validate(form.samlResponse, null))).toBe("in-response-to");
  });

  test("validateSamlResponse - refuses a Response whose own InResponseTo names another request", async () => {
    const { request, form } = await spInitiated();
    const rewritten = setResponseAttribute(form.samlResponse, "InResponseTo", request.requestId);
    await expect(validate(rewritten, request.requestId)).resolves.toBeDefined();
    const tampered = setResponseAttribute(form.samlResponse, "InResponseTo", "_another-request");
    expect(await refusalOf(validate(tampered, request.requestId))).toBe("in-response-to");
  });

  test("validateSamlResponse - refuses an unsigned response", async () => {
    const { request, form } = await spInitiated({ sign: "none" });
    expect(await refusalOf(validate(form.samlResponse, request.requestId))).toBe("signature");
  });

  test("validateSamlResponse - refuses another certificate's signature until the connection lists it", async () => {
    const { request, form } = await spInitiated({ key: "other" });
    expect(await refusalOf(validate(form.samlResponse, request.requestId))).toBe("signature");
    const rotating = { ...connection, certificates: [idp.certificate, idp.otherCertificate] };
    const assertion = await validate(form.samlResponse, request.requestId, { connection: rotating });
    expect(assertion.nameId).toBe("ada@example.com");
  });

  test("validateSamlResponse - refuses an unsigned assertion inside a signed response", async () => {
    const responseOnly = await spInitiated({ sign: "response" });
    const reason = await refusalOf(validate(responseOnly.form.samlResponse, responseOnly.request.requestId));
    expect(reason).toBe("unsigned-assertion");
    const both = await spInitiated({ sign: "both" });
    expect((await validate(both.form.samlResponse, both.request.requestId)).nameId).toBe("ada@example.com");
  });

  test("validateSamlResponse - refuses an assertion for another audience", async () => {
    const { request, form } = await spInitiated({ audience: "https://another-sp.test" });
    expect(await refusalOf(validate(form.samlResponse, request.requestId))).toBe("audience");
  });

  test("validateSamlResponse - refuses an assertion for another ACS URL", async () => {
    const { request, form } = await spInitiated({ recipient: "https://another-sp.test/acs" });
    expect(await refusalOf(validate(form.samlResponse, request.requestId))).toBe("recipient");
  });

  test("validateSamlResponse - refuses an assertion from another issuer", async () => {
    const { request, form } = await spInitiated();
    const impostor = { ...connection, entityId: "https://other-idp.test/saml" };
    expect(await refusalOf(validate(form.samlResponse, request.requestId, { connection: impostor }))).toBe(
      "issuer",
    );
  });

  test("validateSamlResponse - judges the time window at the given now, with the skew", async () => {
    const { request, form } = await spInitiated();
    const { notBefore, notOnOrAfter } = timesOf(form.samlResponse);
    const at = (now: number) => validate(form.samlResponse, request.requestId, { now });
    await expect(at(notOnOrAfter + SKEW_MS - 1)).resolves.toBeDefined();
    expect(await refusalOf(at(notOnOrAfter + SKEW_MS))).toBe("expired");
    await expect(at(notBefore - SKEW_MS)).resolves.toBeDefined();
    expect(await refusalOf(at(notBefore - SKEW_MS - 1))).toBe("not-yet-valid");
    await expect(validate(form.samlResponse, request.requestId, { skewMs: -1 })).rejects.toThrow(RangeError);
  });

  test("validateSamlResponse - returns the same assertionId for a replayed response, for the caller's store to refuse", async () => {
    const { request, form } = await spInitiated();
    const first = await validate(form.samlResponse, request.requestId);
    const replayed = await validate(form.samlResponse, request.requestId);
    expect(replayed.assertionId).toBe(first.assertionId);
    const fresh = await spInitiated();
    expect((await validate(fresh.form.samlResponse, fresh.request.requestId)).assertionId).not.toBe(
      first.assertionId,
    );
  });

  test.each([
    [
      "a second, unsigned assertion after the signed one",
      (r: string) => appendForgedAssertion(r, "eve@evil.test"),
    ],
    [
      "the signed assertion moved inside a forged one",
      (r: string) => wrapSignedAssertion(r, "eve@evil.test", false),
    ],
    [
      "a forged assertion with the signed one's ID",
      (r: string) => wrapSignedAssertion(r, "eve@evil.test", true),
    ],
  ])("validateSamlResponse - refuses signature wrapping: %s", async (_shape, tamper) => {
    const { request, form } = await spInitiated();
    await expect(validate(form.samlResponse, request.requestId)).resolves.toBeDefined();
    const tampered = tamper(form.samlResponse);
    expect(decodeResponse(tampered).getElementsByTagNameNS(SAML_ASSERTION, "NameID")).toHaveLength(2);
    expect(await refusalOf(validate(tampered, request.requestId))).toBe("signature");
  });

  test("validateSamlResponse - reads a comment-split NameID whole", async () => {
    const { request, form } = await spInitiated({ user: "admin@example.com.evil.com" });
    const tampered = injectNameIdComment(form.samlResponse, "admin@example.com".length);
    expect(Buffer.from(tampered, "base64").toString()).toContain("admin@example.com<!---->.evil.com</");
    const assertion = await validate(tampered, request.requestId);
    expect(assertion.nameId).toBe("admin@example.com.evil.com");
    expect(assertion.email).toBe("admin@example.com.evil.com");
  });

  test("validateSamlResponse - refuses what is not a SAML response", async () => {
    expect(await refusalOf(validate("not a SAML response", null))).toBe("malformed");
    expect(await refusalOf(validate(Buffer.from("<a><b></a>").toString("base64"), null))).toBe("malformed");
  });
});

describe("samlSpMetadata", () => {
  test("samlSpMetadata - describes the SP: entity id, HTTP-POST ACS, signed assertions wanted", () => {
    const metadata = parseXml(samlSpMetadata({ spEntityId: SP.entityId, acsUrl: SP.acsUrl }));
    const md = "urn:oasis:names:tc:SAML:2.0:metadata";
    expect(metadata.documentElement.getAttribute("entityID")).toBe(SP.entityId);
    const descriptor = metadata.getElementsByTagNameNS(md, "SPSSODescriptor")[0];
    expect(descriptor?.getAttribute("WantAssertionsSigned")).toBe("true");
    const acs = metadata.getElementsByTagNameNS(md, "AssertionConsumerService")[0];
    expect(acs?.getAttribute("Location")).toBe(SP.acsUrl);
    expect(acs?.getAttribute("Binding")).toBe("urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST");
  });
});
