import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from "node:crypto";

/**
 * A software WebAuthn authenticator for tests: it answers the options a server sends for
 * `navigator.credentials.create()` and `get()` with the JSON a browser's `toJSON()` gives
 * (attestation `none`, ES256 keys from node:crypto), and can be told to answer wrongly: another
 * origin or RP ID, no user verification, a counter of its choosing, another challenge.
 */
export interface SoftwareAuthenticator {
  /** The `toJSON()` of a `create()` answering `options` (`PublicKeyCredentialCreationOptionsJSON`). */
  register(options: CreationOptions, tweaks?: CeremonyTweaks): RegistrationResponse;
  /**
   * The `toJSON()` of a `get()` answering `options`: with the credential `tweaks.credentialId`, else
   * the first of `options.allowCredentials` it holds, else (a discoverable sign-in) the newest it
   * holds for the RP ID.
   */
  authenticate(options: RequestOptions, tweaks?: CeremonyTweaks): AuthenticationResponse;
  /** The ids of the credentials it holds, oldest first. */
  readonly credentialIds: string[];
}

/** Ways to answer wrongly (or as a synced passkey does). */
export interface CeremonyTweaks {
  /** The origin in the client data. Default: the authenticator's origin. */
  origin?: string;
  /** The RP ID whose hash goes into the authenticator data. Default: the options' RP ID. */
  rpId?: string;
  /** The UV flag. Default true. */
  userVerified?: boolean;
  /** The challenge in the client data. Default: the options'. */
  challenge?: string;
  /** The signature counter to report (the authenticator's own otherwise, raised by one per use; 0 for synced). */
  counter?: number;
  /** Which credential answers a `get()`. */
  credentialId?: string;
}

export interface CreationOptions {
  challenge: string;
  rp: { id?: string; name: string };
  user: { id: string; name: string };
}
export interface RequestOptions {
  challenge: string;
  rpId?: string;
  allowCredentials?: { id: string }[];
}
export interface RegistrationResponse {
  id: string;
  rawId: string;
  type: "public-key";
  response: { clientDataJSON: string; attestationObject: string; transports: string[] };
  clientExtensionResults: Record<string, never>;
}
export interface AuthenticationResponse {
  id: string;
  rawId: string;
  type: "public-key";
  response: { clientDataJSON: string; authenticatorData: string; signature: string; userHandle: string };
  clientExtensionResults: Record<string, never>;
}

interface HeldCredential {
  id: string;
  rpId: string;
  userHandle: string;
  privateKey: KeyObject;
  counter: number;
}

/**
 * A software authenticator running in a page of `origin`. `synced: true` makes it behave as a
 * synced passkey provider: backup-eligible and backed-up credentials whose counter stays 0.
 */
export function createSoftwareAuthenticator(options: {
  origin: string;
  synced?: boolean;
}): SoftwareAuthenticator {
  const held: HeldCredential[] = [];
  const device: Device = { origin: options.origin, synced: options.synced ?? false };
  return {
    get credentialIds() {
      return held.map((credential) => credential.id);
    },
    register(creation, tweaks = {}) {
      const { credential, response } = createCredential(device, creation, tweaks);
      held.push(credential);
      return response;
    },
    authenticate(request, tweaks = {}) {
      return assert(device, pickCredential(held, request, tweaks, options.origin), request, tweaks);
    },
  };
}

/** Where the authenticator runs, and whether it behaves as a synced passkey provider. */
interface Device {
  origin: string;
  synced: boolean;
}

/** The client data of a ceremony, as the browser serializes it. */
const clientData = (device: Device, type: string, challenge: string, tweaks: CeremonyTweaks) =>
  Buffer.from(
    JSON.stringify({
      type,
      challenge: tweaks.challenge ?? challenge,
      origin: tweaks.origin ?? device.origin,
      crossOrigin: false,
    }),
  );

/** UP, UV (unless told otherwise), BE and BS for synced credentials, AT with attested credential data. */
const flagsOf = (device: Device, tweaks: CeremonyTweaks, attested: boolean) =>
  0x01 |
  ((tweaks.userVerified ?? true) ? 0x04 : 0) |
  (device.synced ? 0x08 | 0x10 : 0) |
  (attested ? 0x40 : 0);

/** The counter a use reports: the tweak's, else the credential's raised by one (0 stays 0 when synced). */
function nextCounter(device: Device, credential: HeldCredential, tweaks: CeremonyTweaks): number {
  if (tweaks.counter !== undefined) return tweaks.counter;
  if (!device.synced) credential.counter += 1;
  return credential.counter;
}

/** A new ES256 credential and the attestation (`none`) of its creation. */
function createCredential(
  device: Device,
  creation: CreationOptions,
  tweaks: CeremonyTweaks,
): { credential: HeldCredential; response: RegistrationResponse } {
  const rpId = creation.rp.id ?? new URL(device.origin).hostname;
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const jwk = publicKey.export({ format: "jwk" });
  const cose = new Map<number, number | Uint8Array>([
    [1, 2],
    [3, -7],
    [-1, 1],
    [-2, Buffer.from(jwk.x as string, "base64url")],
    [-3, Buffer.from(jwk.y as string, "base64url")],
  ]);
  const idBytes = randomBytes(16);
  const credential: HeldCredential = {
    id: idBytes.toString("base64url"),
    rpId,
    userHandle: creation.user.id,
    privateKey,
    counter: 0,
  };
  const counter = nextCounter(device, credential, tweaks);
  const idLength = Buffer.alloc(2);
  idLength.writeUInt16BE(idBytes.length);
  const authData = Buffer.concat([
    authenticatorDataHead(tweaks.rpId ?? rpId, flagsOf(device, tweaks, true), counter),
    Buffer.alloc(16),
    idLength,
    idBytes,
    cbor(cose),
  ]);
  const attestation = new Map<string, unknown>([
    ["fmt", "none"],
    ["attStmt", new Map()],
    ["authData", authData],
  ]);
  const response: RegistrationResponse = {
    id: credential.id,
    rawId: credential.id,
    type: "public-key",
    response: {
      clientDataJSON: clientData(device, "webauthn.create", creation.challenge, tweaks).toString("base64url"),
      attestationObject: cbor(attestation).toString("base64url"),
      transports: ["internal"],
    },
    clientExtensionResults: {},
  };
  return { credential, response };
}

/** An assertion of `credential` over the authenticator data and the client data's hash. */
function assert(
  device: Device,
  credential: HeldCredential,
  request: RequestOptions,
  tweaks: CeremonyTweaks,
): AuthenticationResponse {
  const rpId = request.rpId ?? new URL(device.origin).hostname;
  const authData = authenticatorDataHead(
    tweaks.rpId ?? rpId,
    flagsOf(device, tweaks, false),
    nextCounter(device, credential, tweaks),
  );
  const data = clientData(device, "webauthn.get", request.challenge, tweaks);
  const signature = sign(
    "sha256",
    Buffer.concat([authData, createHash("sha256").update(data).digest()]),
    credential.privateKey,
  );
  return {
    id: credential.id,
    rawId: credential.id,
    type: "public-key",
    response: {
      clientDataJSON: data.toString("base64url"),
      authenticatorData: authData.toString("base64url"),
      signature: signature.toString("base64url"),
      userHandle: credential.userHandle,
    },
    clientExtensionResults: {},
  };
}

function pickCredential(
  held: HeldCredential[],
  request: RequestOptions,
  tweaks: CeremonyTweaks,
  origin: string,
): HeldCredential {
  const rpId = request.rpId ?? new URL(origin).hostname;
  const allowed = new Set((request.allowCredentials ?? []).map((credential) => credential.id));
  const found =
    tweaks.credentialId !== undefined
      ? held.find((credential) => credential.id === tweaks.credentialId)
      : allowed.size > 0
        ? held.find((credential) => allowed.has(credential.id))
        : held.filter((credential) => credential.rpId === rpId).at(-1);
  if (!found) throw new Error("the software authenticator holds no credential for this request");
  return found;
}

/** rpIdHash (32 bytes), flags (1), signature counter (4, big-endian). */
function authenticatorDataHead(rpId: string, flags: number, counter: number): Buffer {
  const tail = Buffer.alloc(5);
  tail.writeUInt8(flags, 0);
  tail.writeUInt32BE(counter, 1);
  return Buffer.concat([createHash("sha256").update(rpId).digest(), tail]);
}

/** The head of a CBOR data item: major type and length (or value). */
function head(major: number, value: number): Buffer {
  if (value < 24) return Buffer.from([(major << 5) | value]);
  if (value < 0x100) return Buffer.from([(major << 5) | 24, value]);
  if (value < 0x10000) return Buffer.from([(major << 5) | 25, value >> 8, value & 0xff]);
  const out = Buffer.alloc(5);
  out.writeUInt8((major << 5) | 26, 0);
  out.writeUInt32BE(value, 1);
  return out;
}

/** A small CBOR encoder (RFC 8949) for what attestation objects and COSE keys hold: integers, byte and text strings, maps. */
function cbor(value: unknown): Buffer {
  if (typeof value === "number") return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === "string") {
    const bytes = Buffer.from(value, "utf8");
    return Buffer.concat([head(3, bytes.length), bytes]);
  }
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value]);
  if (value instanceof Map) {
    const parts = [head(5, value.size)];
    for (const [key, item] of value) parts.push(cbor(key), cbor(item));
    return Buffer.concat(parts);
  }
  throw new Error(`cbor: cannot encode ${typeof value}`);
}
