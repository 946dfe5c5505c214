import { createHmac, hkdfSync } from "node:crypto";
import { createMemoryOAuthStore } from "@portcullis/store-memory";
import { describe, expect, it } from "vitest";
import {
  type ClientCredentials,
  clientCredentialsOf,
  createClientRegistry,
  type OAuthClientInput,
  parseClientInput,
} from "./clients.js";
import { OAuthError } from "./oauth-error.js";
import { SECRET, testClock } from "./test-ring.js";

const OTHER_SECRET = "oauth-provider-other-secret-9d2c7e1a4b6f0e3d8a5c";
const CB = "https://app.example.test/callback";

const base = (over: Record<string, unknown> = {}) => ({
  name: "Second app",
  redirectUris: [CB],
  scopes: ["openid", "email"],
  ...over,
});

/** The OAuthError `run` throws (synchronously or by rejecting), as `code status: description`. */
async function refusal(run: () => unknown): Promise<string> {
  try {
    await run();
    return "accepted";
  } catch (error) {
    if (!(error instanceof OAuthError)) return `other: ${String(error)}`;
    return `${error.error} ${error.status}: ${error.description}`;
  }
}

const registryOf = (secret: string | string[] = SECRET, store = createMemoryOAuthStore()) => ({
  store,
  registry: createClientRegistry({ store, secret, clock: testClock() }),
});

describe("parseClientInput", () => {
  it("fills the defaults: the code and refresh grants, public without a secret, confidential with one", () => {
    expect(parseClientInput(base())).toEqual({
      ...base(),
      confidential: false,
      grantTypes: ["authorization_code", "refresh_token"],
    });
    expect(parseClientInput(base({ clientSecret: "s".repeat(16) }))).toMatchObject({
      clientSecret: "s".repeat(16),
      confidential: true,
    });
    expect(parseClientInput(base({ clientSecret: null, confidential: true }))).toMatchObject({
      confidential: true,
    });
    expect(parseClientInput(base({ clientId: "my-app.v2_~", clientSecret: undefined }))).toMatchObject({
      clientId: "my-app.v2_~",
      confidential: false,
    });
  });

  it("name and clientId: their length and characters; a field of another name (grants) is refused", async () => {
    for (const name of ["", "   ", "n".repeat(101), "tab\there", 42])
      expect(await refusal(() => parseClientInput(base({ name })))).toMatch(
        /^invalid_client_metadata 400: name /,
      );
    expect(parseClientInput(base({ name: "🦊".repeat(100) })).name).toHaveLength(200);
    for (const clientId of ["", "a b", "é", "c".repeat(101), "a/b", 7])
      expect(await refusal(() => parseClientInput(base({ clientId })))).toMatch(
        /^invalid_client_metadata 400: clientId/,
      );
    expect(await refusal(() => parseClientInput(base({ grants: ["authorization_code"] })))).toBe(
      "invalid_client_metadata 400: a client has no field grants",
    );
    for (const value of [null, "client", [base()]])
      expect(await refusal(() => parseClientInput(value))).toMatch(/^invalid_client_metadata 400/);
  });

  it("redirect URIs: https anywhere, http on loopback, private-use schemes with a dot", () => {
    const accepted = [
      CB,
      "https://localhost/cb",
      "https://app.example.test/cb?tenant=1",
      "http://localhost:8080/cb",
      "http://127.0.0.1/cb",
      "http://[::1]:3000/cb",
      "com.example.app:/oauth/callback",
      "com.example.app://callback",
    ];
    expect(parseClientInput(base({ redirectUris: accepted })).redirectUris).toEqual(accepted);
  });

  it("redirect URIs: http elsewhere, fragments, relative, hostless, credentials, other schemes, spaces: invalid_redirect_uri", async () => {
    const refused = [
      "http://app.example.test/cb",
      "http://127.0.0.2.example.test/cb",
      `${CB}#frag`,
      `${CB}#`,
      "/callback",
      "app.example.test/callback",
      "https:app.example.test/cb",
      "https://user:pw@app.example.test/cb",
      "javascript:alert(1)",
      "data:text/html,hi",
      "myapp:/callback",
      ` ${CB}`,
      `${CB}/ä`,
      "",
    ];
    for (const uri of refused)
      expect(await refusal(() => parseClientInput(base({ redirectUris: [uri] }))), uri).toMatch(
        /^invalid_redirect_uri 400: /,
      );
  });

  it("redirect URIs: at most 20, strings, duplicates dropped", async () => {
    const twenty = Array.from({ length: 20 }, (_, index) => `${CB}/${index}`);
    expect(parseClientInput(base({ redirectUris: twenty })).redirectUris).toHaveLength(20);
    expect(await refusal(() => parseClientInput(base({ redirectUris: [...twenty, `${CB}/20`] })))).toBe(
      "invalid_client_metadata 400: redirectUris may hold at most 20 entries",
    );
    expect(await refusal(() => parseClientInput(base({ redirectUris: CB })))).toMatch(/must be an array/);
    expect(await refusal(() => parseClientInput(base({ redirectUris: [1] })))).toMatch(/must be an array/);
    expect(parseClientInput(base({ redirectUris: [CB, CB] })).redirectUris).toEqual([CB]);
  });

  it("grants: the four known ones; client_credentials only confidential; the code grant needs a redirect URI", async () => {
    const confidential = { clientSecret: "c".repeat(32) };
    expect(await refusal(() => parseClientInput(base({ grantTypes: ["password"] })))).toMatch(
      /^invalid_client_metadata 400: grantTypes holds password/,
    );
    expect(await refusal(() => parseClientInput(base({ grantTypes: [] })))).toMatch(/at least one grant/);
    expect(await refusal(() => parseClientInput(base({ grantTypes: ["client_credentials"] })))).toMatch(
      /client_credentials needs a confidential client/,
    );
    expect(
      parseClientInput(base({ ...confidential, redirectUris: [], grantTypes: ["client_credentials"] }))
        .grantTypes,
    ).toEqual(["client_credentials"]);
    expect(await refusal(() => parseClientInput(base({ redirectUris: [] })))).toBe(
      "invalid_redirect_uri 400: authorization_code needs at least one redirect URI",
    );
    const device = ["urn:ietf:params:oauth:grant-type:device_code", "refresh_token"];
    expect(parseClientInput(base({ redirectUris: [], grantTypes: device })).grantTypes).toEqual(device);
  });

  it("scopes: RFC 6749 scope tokens, at most 50; secrets: 16 to 512 printable characters, never on a public client", async () => {
    for (const scope of ["two words", 'quo"te', "back\\slash", "", "s".repeat(101)])
      expect(await refusal(() => parseClientInput(base({ scopes: [scope] })))).toMatch(
        /^invalid_client_metadata 400/,
      );
    const fifty = Array.from({ length: 50 }, (_, index) => `api:${index}`);
    expect(parseClientInput(base({ scopes: fifty })).scopes).toEqual(fifty);
    expect(await refusal(() => parseClientInput(base({ scopes: [...fifty, "one-more"] })))).toMatch(
      /at most 50/,
    );
    expect(parseClientInput(base({ scopes: ["a", "a", "b"] })).scopes).toEqual(["a", "b"]);
    for (const clientSecret of ["short", "s".repeat(513), `${"s".repeat(16)} x`, 1234567890123456])
      expect(await refusal(() => parseClientInput(base({ clientSecret })))).toMatch(
        /^invalid_client_metadata 400: clientSecret/,
      );
    expect(
      await refusal(() => parseClientInput(base({ clientSecret: "s".repeat(16), confidential: false }))),
    ).toMatch(/public client/);
  });
});

describe("createClientRegistry - create and authenticate", () => {
  it("a public client: a random pcc_ id, no secret hash, no secret returned; authenticates with none", async () => {
    const { store, registry } = registryOf();
    const { client, clientSecret } = await registry.create(base(), { dynamic: true });
    expect(client.clientId).toMatch(/^pcc_[A-Za-z0-9_-]{22}$/);
    expect(clientSecret).toBeUndefined();
    expect(client).toMatchObject({
      secretHash: null,
      dynamic: true,
      grantTypes: ["authorization_code", "refresh_token"],
    });
    expect(await store.getOAuthClient(client.clientId)).toEqual(client);
    expect(await registry.get(client.clientId)).toEqual(client);
    expect(await registry.authenticate({ clientId: client.clientId, method: "none" })).toEqual(client);
    expect(
      await refusal(() =>
        registry.authenticate({
          clientId: client.clientId,
          clientSecret: "x".repeat(43),
          method: "client_secret_post",
        }),
      ),
    ).toBe("invalid_client 401: a public client authenticates without a client secret");
    const other = await registry.create(base());
    expect(other.client.clientId).not.toBe(client.clientId);
    expect(other.client.dynamic).toBe(false);
  });

  it("a confidential client given no secret gets 32 random bytes, returned once and stored as its keyed hash only", async () => {
    const { store, registry } = registryOf();
    const { client, clientSecret } = await registry.create(base({ clientId: "backend", confidential: true }));
    expect(clientSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const stored = await store.getOAuthClient("backend");
    // The stored format: HMAC-SHA-256 (base64url) under HKDF-SHA-256 of the host secret.
    const key = Buffer.from(
      hkdfSync("sha256", SECRET, new Uint8Array(0), "portcullis oauth client secret v1", 32),
    );
    expect(stored?.secretHash).toBe(
      createHmac("sha256", key)
        .update(clientSecret ?? "")
        .digest("base64url"),
    );
    expect(JSON.stringify(stored)).not.toContain(clientSecret);
    const credentials = {
      clientId: "backend",
      clientSecret: clientSecret ?? "",
      method: "client_secret_basic",
    } as const;
    expect(await registry.authenticate(credentials)).toEqual(client);
    const again = await registry.create(base({ clientId: "second", confidential: true }));
    expect(again.clientSecret).not.toBe(clientSecret);
  });

  it("unknown client, wrong secret, missing secret: the same invalid_client 401", async () => {
    const { registry } = registryOf();
    await registry.create(base({ clientId: "backend", clientSecret: "the-right-secret-123" }));
    const failed = "invalid_client 401: client authentication failed";
    const attempt = (credentials: ClientCredentials) => refusal(() => registry.authenticate(credentials));
    expect(
      await attempt({
        clientId: "nobody",
        clientSecret: "the-right-secret-123",
        method: "client_secret_post",
      }),
    ).toBe(failed);
    expect(
      await attempt({
        clientId: "backend",
        clientSecret: "the-right-secret-124",
        method: "client_secret_post",
      }),
    ).toBe(failed);
    expect(await attempt({ clientId: "backend", clientSecret: "", method: "client_secret_post" })).toBe(
      failed,
    );
    expect(await attempt({ clientId: "backend", method: "none" })).toBe(failed);
    expect(await attempt({ clientId: "not an id/", method: "none" })).toBe(failed);
    expect(
      (
        await registry.authenticate({
          clientId: "backend",
          clientSecret: "the-right-secret-123",
          method: "client_secret_post",
        })
      ).clientId,
    ).toBe("backend");
  });

  it("a taken client id is invalid_client_metadata; an invalid input is refused before the store", async () => {
    const { store, registry } = registryOf();
    await registry.create(base({ clientId: "taken" }));
    expect(await refusal(() => registry.create(base({ clientId: "taken", name: "Another" })))).toBe(
      "invalid_client_metadata 400: the client id taken is taken",
    );
    expect((await store.getOAuthClient("taken"))?.name).toBe("Second app");
    expect(
      await refusal(() => registry.create(base({ clientId: "bad", redirectUris: ["http://evil.test/cb"] }))),
    ).toMatch(/^invalid_redirect_uri/);
    expect(await store.getOAuthClient("bad")).toBeNull();
  });

  it("host secret rotation: hashes made under the old secret verify while it is listed second, not once dropped", async () => {
    const store = createMemoryOAuthStore();
    const before = registryOf(OTHER_SECRET, store).registry;
    const { clientSecret } = await before.create(base({ clientId: "backend", confidential: true }));
    const credentials = {
      clientId: "backend",
      clientSecret: clientSecret ?? "",
      method: "client_secret_basic",
    } as const;
    expect(
      (await registryOf([SECRET, OTHER_SECRET], store).registry.authenticate(credentials)).clientId,
    ).toBe("backend");
    expect(await refusal(() => registryOf(SECRET, store).registry.authenticate(credentials))).toMatch(
      /^invalid_client 401/,
    );
  });

  it("rotateSecret: a new secret replaces the old at once; null for a public or absent client", async () => {
    const { registry } = registryOf();
    const { clientSecret } = await registry.create(base({ clientId: "backend", confidential: true }));
    const rotated = await registry.rotateSecret("backend");
    expect(rotated).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(rotated).not.toBe(clientSecret);
    const post = (secret: string) =>
      ({ clientId: "backend", clientSecret: secret, method: "client_secret_post" }) as const;
    expect(await refusal(() => registry.authenticate(post(clientSecret ?? "")))).toMatch(
      /^invalid_client 401/,
    );
    expect((await registry.authenticate(post(rotated ?? ""))).clientId).toBe("backend");
    await registry.create(base({ clientId: "spa" }));
    expect(await registry.rotateSecret("spa")).toBeNull();
    expect(await registry.rotateSecret("nobody")).toBeNull();
  });
});

describe("createClientRegistry - seed", () => {
  const seeded: OAuthClientInput[] = [
    { clientId: "cli", name: "CLI", redirectUris: ["http://127.0.0.1/cb"], scopes: ["openid"] },
    {
      clientId: "worker",
      name: "Worker",
      clientSecret: "worker-secret-0123456789",
      redirectUris: [],
      grantTypes: ["client_credentials"],
      scopes: ["jobs:run"],
    },
  ];

  it("creates the absent, then leaves equal ones: idempotent", async () => {
    const { store, registry } = registryOf();
    expect(await registry.seed(seeded)).toEqual({ created: 2, updated: 0 });
    expect(await registry.seed(seeded)).toEqual({ created: 0, updated: 0 });
    expect(await store.getOAuthClient("cli")).toMatchObject({
      secretHash: null,
      dynamic: false,
      scopes: ["openid"],
    });
    const worker = {
      clientId: "worker",
      clientSecret: "worker-secret-0123456789",
      method: "client_secret_basic",
    } as const;
    expect((await registry.authenticate(worker)).grantTypes).toEqual(["client_credentials"]);
  });

  it("updates changed fields, a changed secret included (the old one then fails)", async () => {
    const { store, registry } = registryOf();
    await registry.seed(seeded);
    const [cli, worker] = seeded as [OAuthClientInput, OAuthClientInput];
    const changed = [
      { ...cli, name: "The CLI", scopes: ["openid", "offline_access"] },
      { ...worker, clientSecret: "worker-secret-rotated-987" },
    ];
    expect(await registry.seed(changed)).toEqual({ created: 0, updated: 2 });
    expect(await store.getOAuthClient("cli")).toMatchObject({
      name: "The CLI",
      scopes: ["openid", "offline_access"],
    });
    const post = (clientSecret: string) =>
      ({ clientId: "worker", clientSecret, method: "client_secret_post" }) as const;
    expect(await refusal(() => registry.authenticate(post("worker-secret-0123456789")))).toMatch(
      /^invalid_client/,
    );
    expect((await registry.authenticate(post("worker-secret-rotated-987"))).clientId).toBe("worker");
    expect(await registry.seed(changed)).toEqual({ created: 0, updated: 0 });
  });

  it("after a host secret rotation, a seed hashes the same client secret again under the new secret", async () => {
    const store = createMemoryOAuthStore();
    await registryOf(OTHER_SECRET, store).registry.seed(seeded);
    const rotating = registryOf([SECRET, OTHER_SECRET], store).registry;
    expect(await rotating.seed(seeded)).toEqual({ created: 0, updated: 1 });
    expect(await rotating.seed(seeded)).toEqual({ created: 0, updated: 0 });
    const worker = {
      clientId: "worker",
      clientSecret: "worker-secret-0123456789",
      method: "client_secret_basic",
    } as const;
    expect((await registryOf(SECRET, store).registry.authenticate(worker)).clientId).toBe("worker");
  });

  it("checks every input before writing: a missing id, a confidential one without secret, an id twice", async () => {
    const { store, registry } = registryOf();
    const [cli] = seeded as [OAuthClientInput];
    const cases: [OAuthClientInput[], RegExp][] = [
      [
        [cli, { name: "No id", redirectUris: [CB], scopes: [] }],
        /the seeded client No id needs its clientId/,
      ],
      [
        [cli, { ...cli, clientId: "conf", confidential: true }],
        /the seeded confidential client conf needs its clientSecret/,
      ],
      [[cli, cli], /the client cli is seeded twice/],
      [[cli, { ...cli, clientId: "bad", redirectUris: ["ftp://x/cb"] }], /^invalid_redirect_uri/],
    ];
    for (const [inputs, message] of cases)
      expect(await refusal(() => registry.seed(inputs))).toMatch(message);
    expect(await store.getOAuthClient("cli")).toBeNull();
  });

  it("two instances seeding at once: each client created once, neither fails", async () => {
    const store = createMemoryOAuthStore();
    const results = await Promise.all([
      registryOf(SECRET, store).registry.seed(seeded),
      registryOf(SECRET, store).registry.seed(seeded),
    ]);
    expect(results.reduce((sum, result) => sum + result.created, 0)).toBe(2);
    expect(await store.listOAuthClients({ limit: 10 })).toHaveLength(2);
  });

  it("a seeded client made public again loses its secret hash", async () => {
    const { store, registry } = registryOf();
    await registry.seed(seeded);
    const [, worker] = seeded as [OAuthClientInput, OAuthClientInput];
    const { clientSecret: _dropped, ...publicWorker } = worker;
    expect(
      await registry.seed([{ ...publicWorker, redirectUris: [CB], grantTypes: ["authorization_code"] }]),
    ).toEqual({
      created: 0,
      updated: 1,
    });
    expect((await store.getOAuthClient("worker"))?.secretHash).toBeNull();
  });
});

describe("clientCredentialsOf", () => {
  const basic = (id: string, secret: string) =>
    `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString("base64")}`;
  const form = (fields: Record<string, string> | [string, string][] = {}) => new URLSearchParams(fields);

  it("HTTP Basic, id and secret form-urlencoded (a colon, a plus, a percent in the secret), any header case", () => {
    const secret = "p:ss+w%rd/ü";
    expect(clientCredentialsOf({ authorization: basic("my app", secret) }, form())).toEqual({
      clientId: "my app",
      clientSecret: secret,
      method: "client_secret_basic",
    });
    const plus = `Basic ${Buffer.from("my+app:a+b").toString("base64")}`;
    expect(clientCredentialsOf({ Authorization: plus }, form())).toEqual({
      clientId: "my app",
      clientSecret: "a b",
      method: "client_secret_basic",
    });
    expect(clientCredentialsOf({ authorization: [basic("cli", "")] }, form({ client_id: "cli" }))).toEqual({
      clientId: "cli",
      method: "client_secret_basic",
    });
  });

  it("the body: client_secret_post with a secret, none with client_id alone or an empty secret", () => {
    expect(clientCredentialsOf({}, form({ client_id: "app", client_secret: "s3cret" }))).toEqual({
      clientId: "app",
      clientSecret: "s3cret",
      method: "client_secret_post",
    });
    expect(clientCredentialsOf({}, form({ client_id: "app" }))).toEqual({ clientId: "app", method: "none" });
    expect(clientCredentialsOf({}, form({ client_id: "app", client_secret: "" }))).toEqual({
      clientId: "app",
      method: "none",
    });
    expect(clientCredentialsOf({ authorization: "Bearer abc" }, form({ client_id: "app" }))).toEqual({
      clientId: "app",
      method: "none",
    });
  });

  it("both ways at once, another client_id, a repeated parameter or header: invalid_request 400", async () => {
    const cases: [Record<string, string | string[]>, URLSearchParams][] = [
      [{ authorization: basic("app", "s3cret") }, form({ client_secret: "s3cret" })],
      [{ authorization: basic("app", "s3cret") }, form({ client_id: "other" })],
      [
        {},
        form([
          ["client_id", "app"],
          ["client_id", "app"],
        ]),
      ],
      [
        {},
        form([
          ["client_id", "app"],
          ["client_secret", "a"],
          ["client_secret", "b"],
        ]),
      ],
      [{ authorization: [basic("app", "a"), basic("app", "b")] }, form()],
      [{ authorization: basic("app", "a"), Authorization: basic("app", "b") }, form()],
      [{}, form({ client_secret: "s3cret" })],
    ];
    for (const [headers, body] of cases)
      expect(await refusal(() => clientCredentialsOf(headers, body))).toMatch(/^invalid_request 400: /);
  });

  it("no client at all, or a malformed Basic header: invalid_client 401", async () => {
    const encoded = (text: string) => `Basic ${Buffer.from(text).toString("base64")}`;
    const headers = [
      {},
      { authorization: "Basic" },
      { authorization: "Basic !!!!" },
      { authorization: "Basic YWJj" }, // "abc": no colon
      { authorization: encoded(":secret") },
      { authorization: encoded("app:%zz") },
      { authorization: `Basic ${Buffer.from([0x61, 0x3a, 0xff]).toString("base64")}` },
      { authorization: `${encoded("app:secret")}x` },
    ];
    for (const header of headers)
      expect(await refusal(() => clientCredentialsOf(header, form())), JSON.stringify(header)).toMatch(
        /^invalid_client 401: /,
      );
  });
});
