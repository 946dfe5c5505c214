// The browser side of passkeys without a WebAuthn library: the server's options JSON (base64url
// strings) become the binary options `navigator.credentials.create/get` take, and the credential
// they return becomes the JSON the server verifies. Each ceremony is one function over a client,
// so an app that does not use passkeys bundles none of this.
import type { AuthClient } from "./client.js";
import type { LoginResponse, StepUpResponse } from "./routes.js";

type Json = Record<string, unknown>;

/** The part of `navigator.credentials` the ceremonies use (a test passes its own). */
export interface CredentialsLike {
  create(options: { publicKey: unknown; signal?: AbortSignal }): Promise<unknown>;
  get(options: { publicKey: unknown; mediation?: string; signal?: AbortSignal }): Promise<unknown>;
}

/** Bytes as base64url without padding (as WebAuthn's JSON forms write them). */
export function toBase64url(bytes: ArrayBuffer | ArrayBufferView): string {
  const view =
    bytes instanceof ArrayBuffer
      ? new Uint8Array(bytes)
      : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let binary = "";
  for (const byte of view) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** base64url (padded or not) as bytes; throws a `TypeError` on anything else. */
export function fromBase64url(text: string): Uint8Array {
  if (!/^[A-Za-z0-9_-]*={0,2}$/.test(text) || text.replace(/=+$/, "").length % 4 === 1)
    throw new TypeError("not base64url");
  const base64 = text.replace(/=+$/, "").replace(/-/g, "+").replace(/_/g, "/");
  const binary = atob(base64.padEnd(Math.ceil(base64.length / 4) * 4, "="));
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

const withIds = (list: unknown) =>
  Array.isArray(list)
    ? list.map((entry: Json) => ({ ...entry, id: fromBase64url(entry.id as string) }))
    : list;

/** The server's registration options (`POST /passkeys/register/options`) as `credentials.create` takes them. */
export function creationOptionsFromJSON(options: Json): Json {
  const user = options.user as Json;
  return {
    ...options,
    challenge: fromBase64url(options.challenge as string),
    user: { ...user, id: fromBase64url(user.id as string) },
    ...(options.excludeCredentials ? { excludeCredentials: withIds(options.excludeCredentials) } : {}),
  };
}

/** The server's sign-in or step-up options as `credentials.get` takes them. */
export function requestOptionsFromJSON(options: Json): Json {
  return {
    ...options,
    challenge: fromBase64url(options.challenge as string),
    ...(options.allowCredentials ? { allowCredentials: withIds(options.allowCredentials) } : {}),
  };
}

interface CredentialLike {
  id: string;
  rawId: ArrayBuffer;
  type: string;
  authenticatorAttachment?: string | null;
  response: Record<string, unknown> & { getTransports?: () => string[] };
  getClientExtensionResults?: () => Json;
}

const BINARY_FIELDS = ["clientDataJSON", "attestationObject", "authenticatorData", "signature", "userHandle"];

/** A `PublicKeyCredential` (from `create` or `get`) as the JSON the server verifies. */
export function credentialToJSON(credential: unknown): Json {
  const { id, rawId, type, authenticatorAttachment, response, getClientExtensionResults } =
    credential as CredentialLike;
  const json: Json = {};
  for (const field of BINARY_FIELDS) {
    const value = response[field];
    if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) json[field] = toBase64url(value);
  }
  if (typeof response.getTransports === "function") json.transports = response.getTransports();
  return {
    id,
    rawId: toBase64url(rawId),
    type,
    response: json,
    clientExtensionResults: getClientExtensionResults?.call(credential) ?? {},
    ...(authenticatorAttachment ? { authenticatorAttachment } : {}),
  };
}

/** The browser's `navigator.credentials`, or the one passed; checked before any request, so no challenge is wasted. */
function credentialsOf(passed?: CredentialsLike): CredentialsLike {
  const found =
    passed ?? (globalThis as { navigator?: { credentials?: CredentialsLike } }).navigator?.credentials;
  if (!found) throw new TypeError("WebAuthn is not available here (no navigator.credentials)");
  return found;
}

export interface PasskeyCeremonyOptions {
  /** `navigator.credentials` by default. */
  credentials?: CredentialsLike;
  /** Aborts the browser's prompt (e.g. a conditional sign-in when the user types a password). */
  signal?: AbortSignal;
}

/**
 * Adds a passkey to the signed-in account (the account needs a fresh step-up): options, the
 * browser's prompt, then `POST /passkeys/register`. Answers the new passkey's `{ id, name, createdAt }`.
 */
export async function registerPasskey(
  client: AuthClient,
  options: PasskeyCeremonyOptions & { name?: string } = {},
) {
  const credentials = credentialsOf(options.credentials);
  const json = await client.request("POST /passkeys/register/options", {});
  const credential = await credentials.create({
    publicKey: creationOptionsFromJSON(json as Json),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const body = { response: credentialToJSON(credential), ...(options.name ? { name: options.name } : {}) };
  return client.request("POST /passkeys/register", { body });
}

/**
 * Signs in with a passkey: without `email` the browser offers the passkeys it holds for this
 * site (discoverable); `mediation: "conditional"` waits for the user to pick one from the email
 * field's autofill (the field needs `autocomplete="username webauthn"`). The client is signed in
 * when it resolves.
 */
export async function signInWithPasskey(
  client: AuthClient,
  options: PasskeyCeremonyOptions & {
    email?: string;
    mediation?: "conditional" | "optional" | "required";
    /**
     * The session outlives the browser (the default) or ends with it. A function is read once the
     * user picked a passkey: an autofill request waits while the user may still change a
     * "keep me signed in" box.
     */
    rememberMe?: boolean | (() => boolean);
  } = {},
): Promise<LoginResponse> {
  const credentials = credentialsOf(options.credentials);
  const json = await client.request("POST /passkeys/login/options", {
    body: options.email ? { email: options.email } : {},
  });
  const credential = await credentials.get({
    publicKey: requestOptionsFromJSON(json),
    ...(options.mediation ? { mediation: options.mediation } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const rememberMe = typeof options.rememberMe === "function" ? options.rememberMe() : options.rememberMe;
  const body = {
    response: credentialToJSON(credential),
    ...(rememberMe !== undefined ? { rememberMe } : {}),
  };
  return client.request("POST /passkeys/login", { body });
}

/** Confirms the signed-in user with one of their passkeys: a step-up, as `stepUp` with a password gives. */
export async function stepUpWithPasskey(
  client: AuthClient,
  options: PasskeyCeremonyOptions = {},
): Promise<StepUpResponse> {
  const credentials = credentialsOf(options.credentials);
  const json = await client.request("POST /passkeys/step-up/options", {});
  const credential = await credentials.get({
    publicKey: requestOptionsFromJSON(json as Json),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return client.request("POST /passkeys/step-up", { body: { response: credentialToJSON(credential) } });
}

/** True when this browser offers passkeys in the autofill of a `username webauthn` field. */
export async function isConditionalPasskeyAvailable(): Promise<boolean> {
  const api = (
    globalThis as { PublicKeyCredential?: { isConditionalMediationAvailable?: () => Promise<boolean> } }
  ).PublicKeyCredential;
  try {
    return (await api?.isConditionalMediationAvailable?.()) === true;
  } catch {
    return false;
  }
}
