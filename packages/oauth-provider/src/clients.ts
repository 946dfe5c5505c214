import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";
import type { OAuthClientPatch, OAuthClientRecord, OAuthStore } from "@portcullis/core";
import { OAuthError } from "./oauth-error.js";
import type { KeyMaterial } from "./sealed-key.js";

/** The device grant's `grant_type` (RFC 8628 §3.4). */
export const DEVICE_CODE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";

/** The grants a client may be given. */
export const CLIENT_GRANT_TYPES: readonly string[] = [
  "authorization_code",
  "refresh_token",
  "client_credentials",
  DEVICE_CODE_GRANT,
];

/** A client as a host seeds it, the back office creates it or registration makes it. */
export interface OAuthClientInput {
  /** 1 to 100 of `[A-Za-z0-9._~-]`; random (`pcc_…`) when absent. */
  clientId?: string;
  /** Shown on the consent page: 1 to 100 characters. */
  name: string;
  /** A confidential client's secret (16 to 512 printable ASCII characters); generated when absent. */
  clientSecret?: string | null;
  /** Whether it authenticates with a secret; default: whether `clientSecret` is given. */
  confidential?: boolean;
  /** Matched exactly; at most 20. */
  redirectUris: string[];
  /** Default `["authorization_code", "refresh_token"]`. */
  grantTypes?: string[];
  /** The scopes it may ask for: at most 50. */
  scopes: string[];
}

const FIELDS = new Set([
  "clientId",
  "name",
  "clientSecret",
  "confidential",
  "redirectUris",
  "grantTypes",
  "scopes",
]);
const CLIENT_ID = /^[A-Za-z0-9._~-]{1,100}$/;
const CLIENT_SECRET = /^[\x21-\x7E]{16,512}$/;
/** An RFC 6749 §3.3 scope token, at most 100 characters. */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]{1,100}$/;
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);
/** A private-use URI scheme (RFC 8252 §7.1): a reversed domain name, so it holds a dot. */
const PRIVATE_USE_SCHEME = /^[a-z][a-z0-9+.-]*\.[a-z0-9+.-]*:$/;
const MAX_REDIRECT_URIS = 20;
const MAX_SCOPES = 50;

const metadataError = (description: string) => new OAuthError("invalid_client_metadata", description);
const redirectError = (description: string) => new OAuthError("invalid_redirect_uri", description);

/** `value` as a list of strings each passing `check`, duplicates dropped. */
function stringList(value: unknown, field: string, max: number, check: (item: string) => void): string[] {
  if (!Array.isArray(value)) throw metadataError(`${field} must be an array of strings`);
  if (value.length > max) throw metadataError(`${field} may hold at most ${max} entries`);
  for (const item of value) {
    if (typeof item !== "string") throw metadataError(`${field} must be an array of strings`);
    check(item);
  }
  return [...new Set(value as string[])];
}

/**
 * Checks one redirect URI (OAuth 2.1 §2.3.1, RFC 8252 §7): absolute, ASCII, no fragment and no
 * credentials; `https` for any host, `http` only on a loopback host, or a private-use scheme
 * holding a dot for a native app (`com.example.app:/callback`).
 */
function checkRedirectUri(uri: string): void {
  if (uri.length > 2000 || !/^[\x21-\x7E]+$/.test(uri))
    throw redirectError("a redirect URI is 1 to 2000 ASCII characters without spaces");
  if (uri.includes("#")) throw redirectError(`the redirect URI ${uri} has a fragment`);
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw redirectError(`the redirect URI ${uri} is not an absolute URI`);
  }
  if (url.username !== "" || url.password !== "")
    throw redirectError(`the redirect URI ${uri} carries credentials`);
  const web = url.protocol === "https:" || url.protocol === "http:";
  if (web && !/^https?:\/\/[^/]/i.test(uri)) throw redirectError(`the redirect URI ${uri} has no host`);
  if (url.protocol === "https:" || PRIVATE_USE_SCHEME.test(url.protocol)) return;
  if (url.protocol === "http:") {
    if (LOOPBACK_HOSTS.has(url.hostname)) return;
    throw redirectError(
      `the redirect URI ${uri} must use https (http only for localhost, 127.0.0.1 or [::1])`,
    );
  }
  throw redirectError(
    `the redirect URI ${uri} must use https, http on a loopback host, or a private-use scheme with a dot (com.example.app:/callback)`,
  );
}

/** The secret and confidentiality of an input, the one consistent with the other. */
function parseSecret(
  secret: unknown,
  confidential: unknown,
): { clientSecret?: string; confidential: boolean } {
  if (confidential !== undefined && typeof confidential !== "boolean")
    throw metadataError("confidential must be a boolean");
  if (secret === undefined || secret === null) return { confidential: confidential === true };
  if (typeof secret !== "string" || !CLIENT_SECRET.test(secret))
    throw metadataError("clientSecret must be 16 to 512 printable ASCII characters without spaces");
  if (confidential === false)
    throw metadataError("a public client (confidential: false) has no clientSecret");
  return { clientSecret: secret, confidential: true };
}

/** The grants, checked against what the client is (confidential, with redirect URIs). */
function parseGrantTypes(value: unknown, confidential: boolean, redirectUris: readonly string[]): string[] {
  const grantTypes =
    value === undefined
      ? ["authorization_code", "refresh_token"]
      : stringList(value, "grantTypes", CLIENT_GRANT_TYPES.length, (grant) => {
          if (!CLIENT_GRANT_TYPES.includes(grant))
            throw metadataError(`grantTypes holds ${grant}; the grants are ${CLIENT_GRANT_TYPES.join(", ")}`);
        });
  if (grantTypes.length === 0) throw metadataError("grantTypes must name at least one grant");
  if (grantTypes.includes("client_credentials") && !confidential)
    throw metadataError("client_credentials needs a confidential client (one with a secret)");
  if (grantTypes.includes("authorization_code") && redirectUris.length === 0)
    throw redirectError("authorization_code needs at least one redirect URI");
  return grantTypes;
}

/**
 * Checks and normalizes a client (`OAuthClientInput`): the rules of each field there, no field
 * besides them, duplicates dropped, `grantTypes` and `confidential` filled in. Throws
 * `OAuthError` 400: `invalid_redirect_uri` for a redirect URI, `invalid_client_metadata` for the
 * rest, with a description that names the field.
 */
export function parseClientInput(value: unknown): OAuthClientInput {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw metadataError("a client must be an object");
  const fields = value as Record<string, unknown>;
  const unknown = Object.keys(fields).find((key) => !FIELDS.has(key) && fields[key] !== undefined);
  if (unknown !== undefined) throw metadataError(`a client has no field ${unknown}`);
  const { clientId, name } = fields;
  if (clientId !== undefined && (typeof clientId !== "string" || !CLIENT_ID.test(clientId)))
    throw metadataError("clientId must be 1 to 100 of A-Z a-z 0-9 . _ ~ -");
  if (typeof name !== "string" || name.trim() === "" || [...name].length > 100 || /\p{Cc}/u.test(name))
    throw metadataError("name must be 1 to 100 characters, without control characters");
  const secret = parseSecret(fields.clientSecret, fields.confidential);
  const redirectUris = stringList(fields.redirectUris, "redirectUris", MAX_REDIRECT_URIS, checkRedirectUri);
  const scopes = stringList(fields.scopes, "scopes", MAX_SCOPES, (scope) => {
    if (!SCOPE_TOKEN.test(scope))
      throw metadataError(
        `the scope ${scope} is not an RFC 6749 scope token (1 to 100 printable characters)`,
      );
  });
  return {
    ...(clientId === undefined ? {} : { clientId }),
    name,
    ...secret,
    redirectUris,
    grantTypes: parseGrantTypes(fields.grantTypes, secret.confidential, redirectUris),
    scopes,
  };
}

/** How a client authenticated at an endpoint (`clientCredentialsOf`). */
export interface ClientCredentials {
  /** The `client_id` it named (not yet proven). */
  clientId: string;
  /** Absent for a public client, or when none was sent. */
  clientSecret?: string;
  /** Where the credentials came from: the Basic header, the body with a secret, the body without. */
  method: "client_secret_basic" | "client_secret_post" | "none";
}

/** The one value of the header `name` (any case); `invalid_request` when it came several times. */
function headerOf(headers: Readonly<Record<string, string | string[] | undefined>>, name: string) {
  const values = Object.entries(headers)
    .filter(([key, value]) => key.toLowerCase() === name && value !== undefined)
    .flatMap(([, value]) => value as string | string[]);
  if (values.length > 1) throw new OAuthError("invalid_request", `the ${name} header came more than once`);
  return values[0];
}

/** `application/x-www-form-urlencoded` decoding (RFC 6749 §2.3.1 applies it to both parts). */
function formDecoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, " "));
  } catch {
    throw new OAuthError("invalid_client", "the HTTP Basic credentials are not form-urlencoded");
  }
}

/** The id and secret of an HTTP Basic header; undefined for another scheme or no header. */
function basicCredentials(
  header: string | undefined,
): { clientId: string; clientSecret: string } | undefined {
  if (header === undefined || !/^basic(?:\s|$)/i.test(header)) return undefined;
  const encoded = /^basic +([A-Za-z0-9+/]+={0,2}) *$/i.exec(header)?.[1];
  let decoded: string | undefined;
  if (encoded !== undefined && encoded.length % 4 === 0) {
    try {
      decoded = new TextDecoder("utf-8", { fatal: true }).decode(Buffer.from(encoded, "base64"));
    } catch {
      decoded = undefined;
    }
  }
  const colon = decoded?.indexOf(":") ?? -1;
  if (decoded === undefined || colon <= 0)
    throw new OAuthError(
      "invalid_client",
      "the Authorization header is not HTTP Basic client_id:client_secret",
    );
  return {
    clientId: formDecoded(decoded.slice(0, colon)),
    clientSecret: formDecoded(decoded.slice(colon + 1)),
  };
}

/**
 * How the client of a token, revocation, introspection or device request authenticated (RFC 6749
 * §2.3.1): HTTP Basic (`client_secret_basic`, id and secret form-urlencoded), else `client_id`
 * and `client_secret` in the body (`client_secret_post`), else `client_id` alone (`none`, a public
 * client). An empty secret counts as none. Throws `OAuthError`: `invalid_request` (400) for a
 * secret sent both ways, a body `client_id` that differs from the Basic one, or a parameter
 * repeated; `invalid_client` (401) for a malformed Basic header or no client at all. A header of
 * another scheme is not read.
 */
export function clientCredentialsOf(
  headers: Readonly<Record<string, string | string[] | undefined>>,
  form: URLSearchParams,
): ClientCredentials {
  const basic = basicCredentials(headerOf(headers, "authorization"));
  const ids = form.getAll("client_id");
  const secrets = form.getAll("client_secret");
  if (ids.length > 1 || secrets.length > 1)
    throw new OAuthError("invalid_request", "client_id and client_secret may each be sent once");
  const [formId] = ids;
  const formSecret = secrets[0] === "" ? undefined : secrets[0];
  if (basic !== undefined) {
    if (formSecret !== undefined)
      throw new OAuthError("invalid_request", "the client authenticated twice: HTTP Basic and client_secret");
    if (formId !== undefined && formId !== basic.clientId)
      throw new OAuthError("invalid_request", "client_id differs from the HTTP Basic client");
    const secret = basic.clientSecret === "" ? {} : { clientSecret: basic.clientSecret };
    return { clientId: basic.clientId, ...secret, method: "client_secret_basic" };
  }
  if (formId === undefined || formId === "") {
    if (formSecret !== undefined)
      throw new OAuthError("invalid_request", "client_secret came without client_id");
    throw new OAuthError(
      "invalid_client",
      "no client authentication: send HTTP Basic credentials or client_id",
    );
  }
  if (formSecret === undefined) return { clientId: formId, method: "none" };
  return { clientId: formId, clientSecret: formSecret, method: "client_secret_post" };
}

/** What a client registry needs. */
export interface ClientRegistryOptions {
  store: OAuthStore;
  /** The host's `secret` (a list when rotating it: the first hashes new secrets, every one verifies). */
  secret: KeyMaterial | readonly KeyMaterial[];
  clock: { now(): number };
}

/** The provider's clients (`createClientRegistry`). */
export interface ClientRegistry {
  /**
   * Stores a new client; `dynamic` marks one that registered itself (RFC 7591). The secret is
   * in the answer once (the store keeps its hash only): the given one, or 32 random bytes
   * (base64url) for a confidential client given none. A taken `clientId` is
   * `invalid_client_metadata`.
   */
  create(
    input: OAuthClientInput,
    options?: { dynamic?: boolean },
  ): Promise<{ client: OAuthClientRecord; clientSecret?: string }>;
  /** The client the credentials prove, or `OAuthError` `invalid_client` (401). */
  authenticate(credentials: ClientCredentials): Promise<OAuthClientRecord>;
  /** The stored client, or null. */
  get(clientId: string): Promise<OAuthClientRecord | null>;
  /**
   * Makes the store hold these clients (the host's seeded list), whatever ran before: creates the
   * absent ones, updates those that differ (a changed secret included), leaves the rest. Each
   * needs its `clientId`, and a confidential one its `clientSecret`. Checks every input before it
   * writes any.
   */
  seed(inputs: OAuthClientInput[]): Promise<{ created: number; updated: number }>;
  /** A new secret for a confidential client, replacing its old one at once; null for an absent or public client. */
  rotateSecret(clientId: string): Promise<string | null>;
}

/** What an unknown client's secret is compared with: a hash's length, matching nothing. */
const NO_HASH = "-".repeat(43);

const bytesOf = (material: KeyMaterial): Uint8Array =>
  typeof material === "string" ? new TextEncoder().encode(material) : material;

/**
 * Client secrets' keyed hashes: HMAC-SHA-256 (base64url) under keys derived with HKDF-SHA-256
 * from each host secret. The first key hashes; `match` tries every key, each computed and
 * compared in constant time whatever matched, and tells which one did (0 the current, -1 none).
 */
function secretHasher(secret: KeyMaterial | readonly KeyMaterial[]) {
  const secrets: readonly KeyMaterial[] =
    typeof secret === "string" || secret instanceof Uint8Array ? [secret] : secret;
  const keys = secrets.map((material) =>
    Buffer.from(
      hkdfSync("sha256", bytesOf(material), new Uint8Array(0), "portcullis oauth client secret v1", 32),
    ),
  );
  const [current] = keys;
  if (current === undefined) throw new TypeError("at least one secret is required");
  const hmac = (key: Buffer, text: string) =>
    createHmac("sha256", key).update(text, "utf8").digest("base64url");
  return {
    hash: (clientSecret: string) => hmac(current, clientSecret),
    match(clientSecret: string, stored: string): number {
      const expected = Buffer.from(stored.length === NO_HASH.length ? stored : NO_HASH, "latin1");
      let found = -1;
      for (const [index, key] of keys.entries()) {
        const equal = timingSafeEqual(Buffer.from(hmac(key, clientSecret), "latin1"), expected);
        if (equal && found === -1 && stored.length === NO_HASH.length) found = index;
      }
      return found;
    },
  };
}

type SecretHasher = ReturnType<typeof secretHasher>;

/** The same strings in the same order. */
const sameList = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((item, index) => item === b[index]);

/** What to change so `existing` becomes the seeded `input`: empty when it is already. */
function seedPatch(
  existing: OAuthClientRecord,
  input: OAuthClientInput,
  hasher: SecretHasher,
): OAuthClientPatch {
  const patch: OAuthClientPatch = {};
  if (existing.name !== input.name) patch.name = input.name;
  if (!sameList(existing.redirectUris, input.redirectUris)) patch.redirectUris = input.redirectUris;
  const grantTypes = input.grantTypes ?? [];
  if (!sameList(existing.grantTypes, grantTypes)) patch.grantTypes = grantTypes;
  if (!sameList(existing.scopes, input.scopes)) patch.scopes = input.scopes;
  const secret = input.clientSecret ?? undefined;
  if (secret === undefined) {
    if (existing.secretHash !== null) patch.secretHash = null;
  } else if (existing.secretHash === null || hasher.match(secret, existing.secretHash) !== 0) {
    // A new secret, or the same one hashed under a rotated key: hashed again under the current key.
    patch.secretHash = hasher.hash(secret);
  }
  return patch;
}

/** The seeded inputs, checked: each valid, with its id (once) and a confidential one's secret. */
function seedInputs(inputs: readonly OAuthClientInput[]): (OAuthClientInput & { clientId: string })[] {
  const seen = new Set<string>();
  return inputs.map((raw) => {
    const input = parseClientInput(raw);
    const { clientId } = input;
    if (clientId === undefined) throw metadataError(`the seeded client ${input.name} needs its clientId`);
    if (seen.has(clientId)) throw metadataError(`the client ${clientId} is seeded twice`);
    seen.add(clientId);
    if (input.confidential && input.clientSecret === undefined)
      throw metadataError(`the seeded confidential client ${clientId} needs its clientSecret`);
    return { ...input, clientId };
  });
}

/** A new client's record. */
function newRecord(
  input: OAuthClientInput,
  fields: Pick<OAuthClientRecord, "clientId" | "secretHash" | "dynamic" | "createdAt">,
): OAuthClientRecord {
  return {
    clientId: fields.clientId,
    name: input.name,
    secretHash: fields.secretHash,
    redirectUris: [...input.redirectUris],
    grantTypes: [...(input.grantTypes ?? [])],
    scopes: [...input.scopes],
    dynamic: fields.dynamic,
    createdAt: fields.createdAt,
  };
}

/** Makes the store hold one seeded client: what it did. */
async function seedOne(
  store: OAuthStore,
  hasher: SecretHasher,
  now: number,
  input: OAuthClientInput & { clientId: string },
): Promise<"created" | "updated" | "unchanged"> {
  const { clientId, clientSecret } = input;
  let existing = await store.getOAuthClient(clientId);
  if (existing === null) {
    const secretHash = typeof clientSecret === "string" ? hasher.hash(clientSecret) : null;
    if (
      await store.createOAuthClient(
        newRecord(input, { clientId, secretHash, dynamic: false, createdAt: now }),
      )
    )
      return "created";
    existing = await store.getOAuthClient(clientId); // another instance seeded it meanwhile
    if (existing === null) throw new Error(`the client ${clientId} could not be seeded`);
  }
  const patch = seedPatch(existing, input, hasher);
  if (Object.keys(patch).length === 0) return "unchanged";
  await store.updateOAuthClient(clientId, patch);
  return "updated";
}

/**
 * The provider's clients over the store's `OAuthStore` part (docs/oauth-provider.md): created
 * with a random or chosen id, their secrets kept as keyed hashes (HMAC-SHA-256 under a key
 * derived from the host's `secret`, so a copy of the table proves nothing without it), seeded
 * idempotently from the host's list, and authenticated at the token endpoint. Authentication
 * does the same work whether the client exists or not: the secret is hashed and compared in
 * constant time against a stand-in hash for an unknown client, and the answer is the same
 * `invalid_client` for an unknown client and a wrong secret.
 */
export function createClientRegistry(options: ClientRegistryOptions): ClientRegistry {
  const { store, clock } = options;
  const hasher = secretHasher(options.secret);

  return {
    async create(raw, createOptions = {}) {
      const input = parseClientInput(raw);
      const secret = input.confidential
        ? (input.clientSecret ?? randomBytes(32).toString("base64url"))
        : undefined;
      const clientId = input.clientId ?? `pcc_${randomBytes(16).toString("base64url")}`;
      const client = newRecord(input, {
        clientId,
        secretHash: secret === undefined ? null : hasher.hash(secret),
        dynamic: createOptions.dynamic === true,
        createdAt: clock.now(),
      });
      if (!(await store.createOAuthClient(client))) throw metadataError(`the client id ${clientId} is taken`);
      return secret === undefined ? { client } : { client, clientSecret: secret };
    },

    async authenticate(credentials) {
      const { clientId, clientSecret } = credentials;
      const client = CLIENT_ID.test(clientId) ? await store.getOAuthClient(clientId) : null;
      const matched = hasher.match(clientSecret ?? "", client?.secretHash ?? NO_HASH) >= 0;
      if (client === null) throw new OAuthError("invalid_client", "client authentication failed");
      if (client.secretHash === null) {
        if (clientSecret === undefined) return client;
        throw new OAuthError("invalid_client", "a public client authenticates without a client secret");
      }
      if (clientSecret === undefined || !matched)
        throw new OAuthError("invalid_client", "client authentication failed");
      return client;
    },

    get: (clientId) => store.getOAuthClient(clientId),

    async seed(inputs) {
      const checked = seedInputs(inputs);
      const counts = { created: 0, updated: 0 };
      for (const input of checked) {
        const outcome = await seedOne(store, hasher, clock.now(), input);
        if (outcome !== "unchanged") counts[outcome]++;
      }
      return counts;
    },

    async rotateSecret(clientId) {
      const client = await store.getOAuthClient(clientId);
      if (client === null || client.secretHash === null) return null;
      const secret = randomBytes(32).toString("base64url");
      return (await store.updateOAuthClient(clientId, { secretHash: hasher.hash(secret) })) ? secret : null;
    },
  };
}
