import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

/**
 * A real SAML identity provider for tests of a service provider: saml-test-idp-child.mjs (auth0's
 * samlp on node:http) in a child process, signing with key pairs made here with `selfsigned` at
 * each start (no key is ever committed). See that script for its routes and the query parameters
 * a test varies. Needs `samlp` and `selfsigned` (optional peer dependencies of this package).
 */

// Next to this module in src/ and in dist/ (the build copies it there).
const CHILD = fileURLToPath(new URL("./saml-test-idp-child.mjs", import.meta.url));

/** The service provider the identity provider answers: its audience, recipient and only ACS URL. */
export interface TestSamlIdpServiceProvider {
  entityId: string;
  acsUrl: string;
}

/** A running SAML test identity provider on 127.0.0.1. */
export interface TestSamlIdp {
  /** Its entity id (`https://idp.test/saml`), the issuer of its assertions. */
  entityId: string;
  /** Its SSO URL (HTTP-Redirect binding). */
  ssoUrl: string;
  /** Where a GET makes it post an unasked (IdP-initiated) response. */
  idpInitiatedUrl: string;
  /** Its metadata document (samlp's), as an administrator downloads it for the service provider. */
  metadataUrl: string;
  /** PEM of the certificate it signs with. */
  certificate: string;
  /** PEM of a stranger's certificate (the `key=other` knob signs with its key). */
  otherCertificate: string;
  /** Registers another service provider in place of the first, as an IdP's administrator does once a connection exists. */
  register(sp: TestSamlIdpServiceProvider): Promise<void>;
  /** Sets who is signed in at the identity provider: the NameID and address of its next responses (default `ada@example.com`). */
  setUser(email: string): Promise<void>;
  /** Stops the child process. */
  close(): Promise<void>;
}

/** What the identity provider's auto-posting form sends to the ACS. */
export interface SamlPostedForm {
  action: string;
  samlResponse: string;
  relayState: string;
}

async function keyPair(commonName: string): Promise<{ cert: string; key: string }> {
  const { generate } = await import("selfsigned");
  const notAfterDate = new Date(Date.now() + 24 * 3_600_000);
  const pems = await generate([{ name: "commonName", value: commonName }], {
    keySize: 2048,
    algorithm: "sha256",
    notAfterDate,
  });
  return { cert: pems.cert, key: pems.private };
}

async function firstLine(child: ChildProcess, stderr: () => string): Promise<string> {
  if (!child.stdout) throw new Error("the IdP has no stdout");
  const lines = createInterface({ input: child.stdout });
  const exited = once(child, "exit").then(([code]) => {
    throw new Error(`the test IdP exited (${String(code)}): ${stderr()}`);
  });
  try {
    const [line] = (await Promise.race([once(lines, "line"), exited])) as [string];
    return line;
  } finally {
    lines.close();
  }
}

async function post(url: string): Promise<void> {
  const response = await fetch(url, { method: "POST" });
  if (response.status !== 204) throw new Error(`the IdP answered ${response.status}`);
}

/**
 * Starts a SAML identity provider for `sp` on a free port of 127.0.0.1 and waits until it
 * listens. It signs its assertions (by default) and posts them only to the registered ACS URL, as a
 * well-configured Okta or Entra ID does; `close()` stops it.
 */
export async function startTestSamlIdp(sp: TestSamlIdpServiceProvider): Promise<TestSamlIdp> {
  const [idp, other] = await Promise.all([keyPair("Portcullis test IdP"), keyPair("Someone else")]);
  const entityId = "https://idp.test/saml";
  const child = spawn(process.execPath, [CHILD, JSON.stringify({ entityId, sp, keys: { idp, other } })], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const { port } = JSON.parse(await firstLine(child, () => stderr)) as { port: number };
  const base = `http://127.0.0.1:${port}`;
  return {
    entityId,
    ssoUrl: `${base}/sso`,
    idpInitiatedUrl: `${base}/idp-initiated`,
    metadataUrl: `${base}/metadata`,
    certificate: idp.cert,
    otherCertificate: other.cert,
    register: (next) => post(`${base}/service-provider?${new URLSearchParams({ ...next })}`),
    setUser: (email) => post(`${base}/user?${new URLSearchParams({ email })}`),
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      await exited;
    },
  };
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', "#34": '"', "#39": "'" };

/** An attribute's value as HTML escapes it (samlp's template escapes with EJS's `<%= %>`). */
function unescapeHtml(value: string): string {
  return value.replace(/&(amp|lt|gt|quot|#34|#39);/g, (_, name: string) => ENTITIES[name] ?? "");
}

/** The attributes of one start tag (`name="value"` pairs; samlp quotes every one with `"`). */
function attributesOf(tag: string): Map<string, string> {
  const attributes = new Map<string, string>();
  for (const [, name, value] of tag.matchAll(/([a-zA-Z-]+)\s*=\s*"([^"]*)"/g)) {
    if (name && value !== undefined) attributes.set(name.toLowerCase(), unescapeHtml(value));
  }
  return attributes;
}

/**
 * Reads samlp's auto-posting form (one `<form>` with hidden `SAMLResponse` and `RelayState`
 * inputs, from a fixed template): what a browser would submit to the ACS.
 */
function readSamlPostedForm(html: string): SamlPostedForm {
  const form = html.match(/<form\b[^>]*>/i)?.[0];
  const fields = new Map<string, string>();
  for (const [input] of html.matchAll(/<input\b[^>]*>/gi)) {
    const attributes = attributesOf(input);
    const name = attributes.get("name");
    if (name) fields.set(name, attributes.get("value") ?? "");
  }
  const samlResponse = fields.get("SAMLResponse");
  if (!form || samlResponse === undefined) throw new Error(`no SAMLResponse form in: ${html}`);
  return {
    action: attributesOf(form).get("action") ?? "",
    samlResponse,
    relayState: fields.get("RelayState") ?? "",
  };
}

/**
 * GETs `url` (an AuthnRequest URL, or the IdP-initiated one) with `knobs` added to its query, and
 * reads the auto-posting form the identity provider answers with, as a browser would submit it.
 */
export async function fetchSamlPostedForm(
  url: string,
  knobs: Record<string, string> = {},
): Promise<SamlPostedForm> {
  const target = new URL(url);
  for (const [name, value] of Object.entries(knobs)) target.searchParams.set(name, value);
  const response = await fetch(target);
  const body = await response.text();
  if (!response.ok) throw new Error(`the IdP answered ${response.status}: ${body}`);
  return readSamlPostedForm(body);
}
