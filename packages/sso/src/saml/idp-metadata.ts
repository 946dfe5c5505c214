import { X509Certificate } from "node:crypto";
import { createRequire } from "node:module";
import type { SamlConnectionSettings } from "@portcullis/core";

/**
 * @xmldom/xmldom's parser (a dependency of this package, the one node-saml uses too), loaded
 * without its types: they pull in the DOM lib, which Portcullis does not compile with.
 */
const { DOMParser } = createRequire(import.meta.url)("@xmldom/xmldom") as {
  DOMParser: new (options: {
    errorHandler: {
      warning: (message: string) => void;
      error: (message: string) => void;
      fatalError: (message: string) => void;
    };
  }) => { parseFromString(source: string, mimeType: string): unknown };
};

/** SAML 2.0 metadata's namespaces. */
const MD = "urn:oasis:names:tc:SAML:2.0:metadata";
const DS = "http://www.w3.org/2000/09/xmldsig#";
const REDIRECT = "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect";
/** The largest metadata document read (Entra ID's are about 20 kB). */
const MAX_METADATA_CHARS = 200_000;

/** The DOM members read here (xmldom's, narrowed: Portcullis does not compile with the DOM lib). */
interface MetadataElement {
  getAttribute(name: string): string | null;
  getElementsByTagNameNS(namespace: string, localName: string): ArrayLike<MetadataElement>;
  readonly textContent: string | null;
}

/** Why an identity provider's metadata document was refused (the message says where). */
export class IdpMetadataError extends Error {
  override name = "IdpMetadataError";
}

/**
 * The SAML settings an identity provider's metadata document gives (what Okta, Entra ID and
 * Google Workspace offer to download): the `IDPSSODescriptor`'s entity id, its single sign-on
 * URL for the HTTP-Redirect binding, and its signing certificates (a `KeyDescriptor` with
 * `use="signing"` or no `use`), each checked to be an X.509 certificate. A document with a
 * DOCTYPE is refused (no entity is ever expanded), as is one over 200,000 characters, one that is
 * not XML, or one without those parts. The metadata's own signature, if any, is not checked: the
 * administrator who pastes it vouches for it, as for the same values typed in.
 */
export function readIdpMetadata(xml: string): SamlConnectionSettings {
  if (xml.length > MAX_METADATA_CHARS) throw new IdpMetadataError("the metadata is too large");
  if (/<!DOCTYPE/i.test(xml)) throw new IdpMetadataError("the metadata must not have a DOCTYPE");
  const fail = (message: string) => {
    throw new IdpMetadataError(`the metadata is not XML: ${message}`);
  };
  const document = new DOMParser({
    errorHandler: { warning: () => {}, error: fail, fatalError: fail },
  }).parseFromString(xml, "application/xml") as unknown as MetadataElement;
  const entities = document.getElementsByTagNameNS(MD, "EntityDescriptor");
  const idps = document.getElementsByTagNameNS(MD, "IDPSSODescriptor");
  if (entities.length !== 1 || idps.length !== 1)
    throw new IdpMetadataError("the metadata must describe one identity provider (one IDPSSODescriptor)");
  const entityId = (entities[0] as MetadataElement).getAttribute("entityID")?.trim();
  if (!entityId) throw new IdpMetadataError("the metadata has no entityID");
  const idp = idps[0] as MetadataElement;
  const services = Array.from(idp.getElementsByTagNameNS(MD, "SingleSignOnService"));
  const ssoUrl = services
    .find((service) => service.getAttribute("Binding") === REDIRECT)
    ?.getAttribute("Location");
  if (!ssoUrl)
    throw new IdpMetadataError("the metadata has no SingleSignOnService with the HTTP-Redirect binding");
  const certificates = Array.from(idp.getElementsByTagNameNS(MD, "KeyDescriptor"))
    .filter((key) => (key.getAttribute("use") || "signing") === "signing")
    .flatMap((key) => Array.from(key.getElementsByTagNameNS(DS, "X509Certificate")))
    .map((element) => pemOf(element.textContent ?? ""));
  if (certificates.length === 0) throw new IdpMetadataError("the metadata has no signing certificate");
  return { entityId, ssoUrl: ssoUrl.trim(), certificates: [...new Set(certificates)].slice(0, 3) };
}

/** The PEM of a metadata's base64 certificate, checked to be one. */
function pemOf(base64: string): string {
  const body = base64.replace(/\s+/g, "");
  const lines = body.match(/.{1,64}/g) ?? [];
  const pem = `-----BEGIN CERTIFICATE-----\n${lines.join("\n")}\n-----END CERTIFICATE-----`;
  try {
    return new X509Certificate(pem).toString().trim();
  } catch {
    throw new IdpMetadataError("a signing certificate of the metadata is not an X.509 certificate");
  }
}
