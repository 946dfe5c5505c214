import { X509Certificate } from "node:crypto";
import { startTestSamlIdp } from "@portcullis/testing";
import { describe, expect, it } from "vitest";
import { IdpMetadataError, readIdpMetadata } from "./idp-metadata.js";

/** A metadata document with `idp` as its IDPSSODescriptor's inside. */
const metadata = (idp: string, entityId = "https://idp.example.test/saml") =>
  `<?xml version="1.0"?><md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="${entityId}"><md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">${idp}</md:IDPSSODescriptor></md:EntityDescriptor>`;
const redirectService =
  '<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.example.test/sso"/>';
const postService =
  '<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="https://idp.example.test/post"/>';

describe("readIdpMetadata", () => {
  it("readIdpMetadata - a real identity provider's metadata (samlp's): its entity id, redirect URL and certificate", async () => {
    const idp = await startTestSamlIdp({ entityId: "urn:sp", acsUrl: "http://127.0.0.1/acs" });
    try {
      const xml = await (await fetch(idp.metadataUrl)).text();
      const settings = readIdpMetadata(xml);
      expect(settings.entityId).toBe(idp.entityId);
      expect(settings.ssoUrl).toBe(idp.ssoUrl);
      expect(settings.certificates).toEqual([new X509Certificate(idp.certificate).toString().trim()]);
    } finally {
      await idp.close();
    }
  });

  it("readIdpMetadata - refuses what is not one identity provider's usable metadata, saying why", async () => {
    const idp = await startTestSamlIdp({ entityId: "urn:sp", acsUrl: "http://127.0.0.1/acs" });
    await idp.close();
    const base64 = idp.certificate.replace(/-----[A-Z ]+-----|\s/g, "");
    const signing = `<md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${base64}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>`;
    const encryption = signing.replace('use="signing"', 'use="encryption"');
    // What works: a signing key (or one without `use`) and the redirect binding.
    expect(readIdpMetadata(metadata(signing + redirectService)).certificates).toHaveLength(1);
    expect(readIdpMetadata(metadata(signing.replace(' use="signing"', "") + redirectService)).ssoUrl).toBe(
      "https://idp.example.test/sso",
    );
    const refused: [string, RegExp][] = [
      ["not xml at all <", /not XML/],
      [metadata(signing + postService), /HTTP-Redirect/],
      [metadata(encryption + redirectService), /no signing certificate/],
      [metadata(signing.replace(base64, "bm90IGEgY2VydGlmaWNhdGU=") + redirectService), /not an X\.509/],
      [metadata(signing + redirectService, ""), /no entityID/],
      [
        '<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="x"/>',
        /one identity provider/,
      ],
      [
        `<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>${metadata(signing + redirectService)}`,
        /DOCTYPE/,
      ],
      [`${metadata(signing + redirectService)}<!--${"x".repeat(200_000)}-->`, /too large/],
    ];
    for (const [xml, reason] of refused) {
      expect(() => readIdpMetadata(xml)).toThrow(IdpMetadataError);
      expect(() => readIdpMetadata(xml)).toThrow(reason);
    }
  });
});
