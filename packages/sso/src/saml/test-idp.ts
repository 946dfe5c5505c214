import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { generate } from "selfsigned";
import { parseHtml } from "./test-xml.js";

/**
 * A real SAML identity provider for the tests: test-idp-child.mjs (auth0's samlp on node:http) in
 * a child process, signing with key pairs made here with `selfsigned` at each start (no key is
 * ever committed). See that script for its routes and the query parameters a test varies.
 */

const CHILD = fileURLToPath(new URL("./test-idp-child.mjs", import.meta.url));

/** The service provider the IdP is configured for. */
export interface TestIdpServiceProvider {
  entityId: string;
  acsUrl: string;
}

/** A running test IdP. */
export interface TestIdp {
  entityId: string;
  /** Its SSO URL (HTTP-Redirect binding). */
  ssoUrl: string;
  /** Where a GET makes it post an unasked (IdP-initiated) response. */
  idpInitiatedUrl: string;
  /** Its metadata document (samlp's). */
  metadataUrl: string;
  /** PEM of the certificate it signs with. */
  certificate: string;
  /** PEM of the stranger's certificate (`key=other` signs with its key). */
  otherCertificate: string;
  /** Registers another service provider in place of the first: its audience, recipient and the only ACS URL it posts to. */
  register(sp: TestIdpServiceProvider): Promise<void>;
  close(): Promise<void>;
}

/** What the IdP's auto-posting form would send to the ACS. */
export interface PostedForm {
  action: string;
  samlResponse: string;
  relayState: string;
}

async function keyPair(commonName: string): Promise<{ cert: string; key: string }> {
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

/** Starts the IdP for `sp` and waits until it listens. */
export async function startTestIdp(sp: TestIdpServiceProvider): Promise<TestIdp> {
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
    async register(next) {
      const query = new URLSearchParams({ entityId: next.entityId, acsUrl: next.acsUrl });
      const response = await fetch(`${base}/service-provider?${query}`, { method: "POST" });
      if (response.status !== 204) throw new Error(`the IdP answered ${response.status}`);
    },
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/**
 * GETs `url` (an AuthnRequest URL, or the IdP-initiated one) with `knobs` added to its query, and
 * reads the auto-posting form the IdP answers with, as a browser would submit it.
 */
export async function fetchPostedForm(url: string, knobs: Record<string, string> = {}): Promise<PostedForm> {
  const target = new URL(url);
  for (const [name, value] of Object.entries(knobs)) target.searchParams.set(name, value);
  const response = await fetch(target);
  const body = await response.text();
  if (!response.ok) throw new Error(`the IdP answered ${response.status}: ${body}`);
  const document = parseHtml(body);
  const form = document.getElementsByTagName("form")[0];
  const fields = new Map<string, string>();
  const inputs = document.getElementsByTagName("input");
  for (let i = 0; i < inputs.length; i++) {
    const input = inputs[i];
    const name = input?.getAttribute("name");
    if (input && name) fields.set(name, input.getAttribute("value") ?? "");
  }
  const samlResponse = fields.get("SAMLResponse");
  if (!form || samlResponse === undefined) throw new Error(`no SAMLResponse form in: ${body}`);
  return {
    action: form.getAttribute("action") ?? "",
    samlResponse,
    relayState: fields.get("RelayState") ?? "",
  };
}
