import { readFile } from "node:fs/promises";
import {
  DEVICE_CODE_GRANT,
  type OAuthClientInput,
  OAuthError,
  parseClientInput,
  STANDARD_SCOPES,
} from "@portcullis/oauth-provider";
import { ConfigError } from "./config.js";

/** The scopes of the example's own API that clients may ask for, besides `openid profile email offline_access`. */
export const EXAMPLE_SCOPES: readonly string[] = ["projects:read"];

/** The fields of an entry of OAUTH_CLIENTS_FILE (docs/examples.md). */
const FIELDS = new Set(["clientId", "clientSecret", "redirectUris", "grants", "scopes", "name"]);

/** The grants an entry may name: the provider's, and `device_code` short for the device grant's URN. */
const GRANT_ALIASES: Readonly<Record<string, string>> = { device_code: DEVICE_CODE_GRANT };

/** Why one entry cannot be used, as the start-up message says it. */
class EntryProblem extends Error {}

/** An entry's `grants` as the provider's `grantTypes` (absent: the provider's default). */
function grantTypesOf(grants: unknown): unknown {
  if (grants === undefined || !Array.isArray(grants)) return grants;
  return grants.map((grant) => (typeof grant === "string" ? (GRANT_ALIASES[grant] ?? grant) : grant));
}

/**
 * One entry of the file as the provider's `OAuthClientInput`: the contract's fields only, a
 * `clientId` of its own, `grants` mapped to `grantTypes`, and only scopes this example offers;
 * the rest is the provider's own check (`parseClientInput`: redirect URIs, secret, grants).
 */
function clientOf(entry: unknown): OAuthClientInput {
  if (typeof entry !== "object" || entry === null || Array.isArray(entry))
    throw new EntryProblem("is not an object");
  const fields = entry as Record<string, unknown>;
  const unknown = Object.keys(fields).find((key) => !FIELDS.has(key));
  if (unknown !== undefined)
    throw new EntryProblem(
      `has a field ${unknown}; an entry has clientId, clientSecret, redirectUris, grants, scopes and name${unknown === "grantTypes" ? " (grants, not grantTypes)" : ""}`,
    );
  if (typeof fields.clientId !== "string" || fields.clientId === "")
    throw new EntryProblem("has no clientId");
  const { grants, ...rest } = fields;
  let client: OAuthClientInput;
  try {
    client = parseClientInput({ ...rest, grantTypes: grantTypesOf(grants) });
  } catch (error) {
    if (error instanceof OAuthError)
      throw new EntryProblem(error.description.replace("grantTypes", "grants"));
    throw error;
  }
  const offered = [...STANDARD_SCOPES, ...EXAMPLE_SCOPES];
  const unoffered = client.scopes.filter((scope) => !offered.includes(scope));
  if (unoffered.length > 0)
    throw new EntryProblem(`asks for ${unoffered.join(", ")}; the scopes are ${offered.join(", ")}`);
  return client;
}

/**
 * The clients of OAUTH_CLIENTS_FILE: a JSON array of `{ clientId, clientSecret?, redirectUris,
 * grants, scopes, name }` (docs/examples.md), each checked as the provider checks a client, and
 * each clientId once. A file that cannot be read, is not such an array, or holds an entry that
 * does not pass is a `ConfigError` naming the file and the entry (its index and clientId): the
 * server does not start.
 */
export async function readOAuthClientsFile(path: string): Promise<OAuthClientInput[]> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new ConfigError(`OAUTH_CLIENTS_FILE ${path} cannot be read: ${(error as Error).message}`);
  }
  let entries: unknown;
  try {
    entries = JSON.parse(text);
  } catch {
    throw new ConfigError(`OAUTH_CLIENTS_FILE ${path} is not valid JSON`);
  }
  if (!Array.isArray(entries))
    throw new ConfigError(`OAUTH_CLIENTS_FILE ${path} must hold a JSON array of clients`);
  const seen = new Set<string>();
  return entries.map((entry: unknown, index) => {
    const id = (entry as { clientId?: unknown } | null)?.clientId;
    const named = `OAUTH_CLIENTS_FILE ${path}: entry ${index}${typeof id === "string" && id !== "" ? ` (clientId ${id})` : ""}`;
    try {
      const client = clientOf(entry);
      if (seen.has(client.clientId as string))
        throw new EntryProblem("repeats a clientId of an earlier entry");
      seen.add(client.clientId as string);
      return client;
    } catch (error) {
      if (error instanceof EntryProblem) throw new ConfigError(`${named} ${error.message}`);
      throw error;
    }
  });
}
