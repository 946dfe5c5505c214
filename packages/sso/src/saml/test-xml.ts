import { createRequire } from "node:module";

/**
 * Test-only XML edits of genuine IdP output, where samlp cannot produce a shape a test needs (a
 * comment inside the NameID, a second assertion, a moved assertion). Nothing here signs: every
 * signature in a tampered response is the one the IdP made.
 *
 * The parser is @xmldom/xmldom, the one node-saml itself depends on, loaded from node-saml's own
 * dependencies (it is not a dependency of this package); the few DOM members used are typed below
 * because the package's types need the DOM lib, which Portcullis does not compile with.
 */

/** The DOM members the tests use (xmldom's Node, Element and Document, narrowed). */
export interface XmlNode {
  readonly localName: string | null;
  readonly parentNode: XmlNode | null;
  readonly ownerDocument: XmlDocument;
  readonly firstChild: XmlNode | null;
  textContent: string | null;
  getAttribute(name: string): string | null;
  setAttribute(name: string, value: string): void;
  getElementsByTagName(name: string): ArrayLike<XmlNode>;
  getElementsByTagNameNS(namespace: string, localName: string): ArrayLike<XmlNode>;
  appendChild(child: XmlNode): XmlNode;
  insertBefore(child: XmlNode, reference: XmlNode | null): XmlNode;
  removeChild(child: XmlNode): XmlNode;
  cloneNode(deep: boolean): XmlNode;
}

export interface XmlDocument extends XmlNode {
  readonly documentElement: XmlNode;
  createComment(data: string): XmlNode;
  createTextNode(data: string): XmlNode;
}

interface Xmldom {
  DOMParser: new (options?: {
    errorHandler?: {
      warning?: (m: string) => void;
      error?: (m: string) => void;
      fatalError?: (m: string) => void;
    };
  }) => { parseFromString(source: string, mimeType: string): XmlDocument };
  XMLSerializer: new () => { serializeToString(node: XmlNode): string };
}

const fromNodeSaml = createRequire(createRequire(import.meta.url).resolve("@node-saml/node-saml"));
const xmldom = fromNodeSaml("@xmldom/xmldom") as Xmldom;

const SAML_ASSERTION = "urn:oasis:names:tc:SAML:2.0:assertion";
const XMLDSIG = "http://www.w3.org/2000/09/xmldsig#";

function fail(message: string): never {
  throw new Error(`XML: ${message}`);
}

/** Parses XML, throwing on any error. */
export function parseXml(xml: string): XmlDocument {
  return new xmldom.DOMParser({ errorHandler: { error: fail, fatalError: fail } }).parseFromString(
    xml,
    "text/xml",
  );
}

/** Decodes a posted SAMLResponse into a document. */
export function decodeResponse(samlResponse: string): XmlDocument {
  return parseXml(Buffer.from(samlResponse, "base64").toString("utf8"));
}

/** Encodes a document back into a SAMLResponse field. */
export function encodeResponse(document: XmlDocument): string {
  return Buffer.from(new xmldom.XMLSerializer().serializeToString(document)).toString("base64");
}

function single(parent: XmlNode, namespace: string, localName: string): XmlNode {
  const found = parent.getElementsByTagNameNS(namespace, localName);
  if (found.length !== 1) fail(`expected one ${localName}, found ${found.length}`);
  return found[0] ?? fail(localName);
}

/** The response's assertion and its NameID. */
export function assertionOf(document: XmlDocument): { assertion: XmlNode; nameId: XmlNode } {
  const assertion = single(document, SAML_ASSERTION, "Assertion");
  return { assertion, nameId: single(assertion, SAML_ASSERTION, "NameID") };
}

/**
 * Splits the NameID's text with an empty comment after its first `at` characters
 * (`admin@example.com<!---->.evil.com`). Canonicalization drops comments, so the signature holds.
 */
export function injectNameIdComment(samlResponse: string, at: number): string {
  const document = decodeResponse(samlResponse);
  const { nameId } = assertionOf(document);
  const value = nameId.textContent ?? "";
  while (nameId.firstChild) nameId.removeChild(nameId.firstChild);
  nameId.appendChild(document.createTextNode(value.slice(0, at)));
  nameId.appendChild(document.createComment(""));
  nameId.appendChild(document.createTextNode(value.slice(at)));
  return encodeResponse(document);
}

/** A copy of the assertion without its signature, for `nameId`, with ID `id`. */
function forgedCopy(assertion: XmlNode, nameId: string, id: string): XmlNode {
  const copy = assertion.cloneNode(true);
  const signature = single(copy, XMLDSIG, "Signature");
  signature.parentNode?.removeChild(signature);
  copy.setAttribute("ID", id);
  single(copy, SAML_ASSERTION, "NameID").textContent = nameId;
  return copy;
}

/** Signature wrapping: a second, unsigned assertion for `nameId` after the signed one. */
export function appendForgedAssertion(samlResponse: string, nameId: string): string {
  const document = decodeResponse(samlResponse);
  const { assertion } = assertionOf(document);
  document.documentElement.appendChild(forgedCopy(assertion, nameId, "_forged"));
  return encodeResponse(document);
}

/**
 * Signature wrapping: an unsigned assertion for `nameId` takes the signed one's place, and the
 * signed one moves inside it (its signature still verifies where it now stands). With `sameId`,
 * the forgery carries the signed assertion's ID, so a lookup by ID could find either.
 */
export function wrapSignedAssertion(samlResponse: string, nameId: string, sameId: boolean): string {
  const document = decodeResponse(samlResponse);
  const { assertion } = assertionOf(document);
  const forged = forgedCopy(assertion, nameId, sameId ? (assertion.getAttribute("ID") ?? "") : "_forged");
  document.documentElement.insertBefore(forged, assertion);
  document.documentElement.removeChild(assertion);
  forged.appendChild(assertion);
  return encodeResponse(document);
}

/** Sets an attribute of the (unsigned) Response element, around an assertion signed on its own. */
export function setResponseAttribute(samlResponse: string, name: string, value: string): string {
  const document = decodeResponse(samlResponse);
  document.documentElement.setAttribute(name, value);
  return encodeResponse(document);
}
