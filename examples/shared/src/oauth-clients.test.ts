import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEVICE_CODE_GRANT } from "@portcullis/oauth-provider";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, readConfig } from "./config.js";
import { readOAuthClientsFile } from "./oauth-clients.js";
import { createExampleAuth } from "./setup.js";

let dir = "";
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "portcullis-oauth-clients-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** `content` (JSON unless a string) in a file of the temporary folder; its path. */
async function file(name: string, content: unknown): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
}

const CLI = {
  clientId: "cli",
  name: "The command line",
  redirectUris: ["http://127.0.0.1:8765/callback"],
  grants: ["authorization_code", "refresh_token", "device_code"],
  scopes: ["openid", "profile", "email", "offline_access", "projects:read"],
};
const WORKER = {
  clientId: "worker",
  clientSecret: "worker-secret-0123456789abcdef",
  name: "The nightly worker",
  redirectUris: [],
  grants: ["client_credentials"],
  scopes: ["projects:read"],
};

describe("readOAuthClientsFile", () => {
  it("oauth clients - the contract's entries become the provider's clients: grants as grantTypes (device_code short for its URN), a secret makes a confidential client", async () => {
    const path = await file("good.json", [CLI, WORKER]);
    expect(await readOAuthClientsFile(path)).toEqual([
      {
        clientId: "cli",
        name: "The command line",
        confidential: false,
        redirectUris: ["http://127.0.0.1:8765/callback"],
        grantTypes: ["authorization_code", "refresh_token", DEVICE_CODE_GRANT],
        scopes: ["openid", "profile", "email", "offline_access", "projects:read"],
      },
      {
        clientId: "worker",
        name: "The nightly worker",
        clientSecret: "worker-secret-0123456789abcdef",
        confidential: true,
        redirectUris: [],
        grantTypes: ["client_credentials"],
        scopes: ["projects:read"],
      },
    ]);
    expect(await readOAuthClientsFile(await file("empty.json", []))).toEqual([]);
    // Without grants: the provider's default, the code grant with refresh tokens.
    const { grants: _, ...noGrants } = CLI;
    const [client] = await readOAuthClientsFile(await file("default-grants.json", [noGrants]));
    expect(client?.grantTypes).toEqual(["authorization_code", "refresh_token"]);
  });

  it("oauth clients - a file that cannot be read, is not JSON or is not an array is refused, naming the file", async () => {
    const missing = join(dir, "missing.json");
    await expect(readOAuthClientsFile(missing)).rejects.toThrow(
      new RegExp(`^OAUTH_CLIENTS_FILE ${missing} cannot be read: `),
    );
    await expect(readOAuthClientsFile(missing)).rejects.toBeInstanceOf(ConfigError);
    const broken = await file("broken.json", "[{");
    await expect(readOAuthClientsFile(broken)).rejects.toThrow(
      new ConfigError(`OAUTH_CLIENTS_FILE ${broken} is not valid JSON`),
    );
    const object = await file("object.json", { clients: [CLI] });
    await expect(readOAuthClientsFile(object)).rejects.toThrow(
      new ConfigError(`OAUTH_CLIENTS_FILE ${object} must hold a JSON array of clients`),
    );
  });

  it("oauth clients - a bad entry is refused with the file, its index and its clientId, and what is wrong with it", async () => {
    const cases: [string, unknown, string][] = [
      ["not-object", "cli", "entry 1 is not an object"],
      ["no-id", { ...CLI, clientId: undefined }, "entry 1 has no clientId"],
      [
        "grant-types",
        { ...CLI, grants: undefined, grantTypes: ["authorization_code"] },
        "entry 1 (clientId cli) has a field grantTypes; an entry has clientId, clientSecret, redirectUris, grants, scopes and name (grants, not grantTypes)",
      ],
      [
        "plain-http",
        { ...CLI, redirectUris: ["http://app.example.com/callback"] },
        "entry 1 (clientId cli) the redirect URI http://app.example.com/callback must use https (http only for localhost, 127.0.0.1 or [::1])",
      ],
      [
        "unknown-grant",
        { ...CLI, grants: ["password"] },
        "entry 1 (clientId cli) grants holds password; the grants are authorization_code, refresh_token, client_credentials, urn:ietf:params:oauth:grant-type:device_code",
      ],
      [
        "public-credentials",
        { ...WORKER, clientSecret: undefined },
        "entry 1 (clientId worker) client_credentials needs a confidential client (one with a secret)",
      ],
      [
        "scope",
        { ...CLI, scopes: ["openid", "projects:write"] },
        "entry 1 (clientId cli) asks for projects:write; the scopes are openid, profile, email, offline_access, projects:read",
      ],
      ["twice", { ...CLI, name: "Again" }, "entry 1 (clientId cli) repeats a clientId of an earlier entry"],
    ];
    for (const [name, entry, message] of cases) {
      const path = await file(`${name}.json`, [CLI, entry]);
      await expect(readOAuthClientsFile(path), name).rejects.toThrow(
        new ConfigError(`OAUTH_CLIENTS_FILE ${path}: ${message}`),
      );
    }
  });
});

describe("createExampleAuth with OAUTH_PROVIDER", () => {
  const secret = "oauth-example-secret-4hQ9vM2xR7kL0pW3zT8nB5cJ1yF6gD";

  it("oauth clients - OAUTH_PROVIDER=true mounts the provider's routes and seeds the file's clients into the stores; off, there is none", async () => {
    const path = await file("seeded.json", [CLI, WORKER]);
    const env = { AUTH_SECRET: secret, OAUTH_PROVIDER: "true", OAUTH_CLIENTS_FILE: path };
    const example = await createExampleAuth(readConfig(env, () => {}));
    try {
      const paths = (example.auth.oauthProvider?.routes ?? []).map(
        (route) => (route as { path: string }).path,
      );
      expect(paths).toEqual(expect.arrayContaining(["/oauth2/authorize", "/oauth2/token", "/oauth2/grants"]));
      const { oauth } = example.stores;
      await expect
        .poll(() => oauth.getOAuthClient("worker"))
        .toMatchObject({
          name: "The nightly worker",
          grantTypes: ["client_credentials"],
          secretHash: expect.any(String),
        });
      expect(await oauth.getOAuthClient("cli")).toMatchObject({ secretHash: null, dynamic: false });
    } finally {
      example.close();
    }
    const off = await createExampleAuth(readConfig({ AUTH_SECRET: secret }, () => {}));
    expect(off.auth.oauthProvider).toBeUndefined();
    off.close();
  });

  it("oauth clients - a bad OAUTH_CLIENTS_FILE stops the start with its message", async () => {
    const path = await file("bad-start.json", [{ ...CLI, grants: ["implicit"] }]);
    const config = readConfig(
      { AUTH_SECRET: secret, OAUTH_PROVIDER: "true", OAUTH_CLIENTS_FILE: path },
      () => {},
    );
    await expect(createExampleAuth(config)).rejects.toThrow(
      new ConfigError(
        `OAUTH_CLIENTS_FILE ${path}: entry 0 (clientId cli) grants holds implicit; the grants are authorization_code, refresh_token, client_credentials, urn:ietf:params:oauth:grant-type:device_code`,
      ),
    );
  });
});
