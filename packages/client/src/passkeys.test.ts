// The browser side of passkeys: base64url, the options and credential conversions, and the three
// ceremonies against a real server (express adapter, memory stores), with `navigator.credentials`
// played by the testing package's software authenticator behind binary (ArrayBuffer) values, as
// a browser hands them over.
import { createArgon2Hasher, createAuth, type EmailMessage, silentLogger } from "@portcullis/core";
import { createMemoryStores } from "@portcullis/store-memory";
import { createSoftwareAuthenticator, type SoftwareAuthenticator } from "@portcullis/testing";
import express from "express";
import { describe, expect, it } from "vitest";
import {
  type CredentialsLike,
  createAuthClient,
  creationOptionsFromJSON,
  credentialToJSON,
  fromBase64url,
  type PortcullisError,
  registerPasskey,
  requestOptionsFromJSON,
  signInWithPasskey,
  stepUpWithPasskey,
  toBase64url,
} from "./index.js";
import { ADA, APP_ORIGIN, cookieJarFetch, listenWithAuth, PASSWORD } from "./test-server.js";

describe("base64url", () => {
  it("toBase64url, fromBase64url - every byte value and every length up to 40 round-trip, unpadded", () => {
    const all = Uint8Array.from({ length: 256 }, (_, index) => index);
    expect(fromBase64url(toBase64url(all))).toEqual(all);
    for (let length = 0; length <= 40; length += 1) {
      const bytes = all.slice(255 - length, 255);
      const text = toBase64url(bytes);
      expect(text).toMatch(/^[A-Za-z0-9_-]*$/);
      expect(fromBase64url(text)).toEqual(bytes);
      expect(Buffer.from(text, "base64url")).toEqual(Buffer.from(bytes));
    }
    // A view of part of a buffer converts only its own bytes.
    expect(toBase64url(new Uint8Array(all.buffer, 250, 3))).toBe(
      Buffer.from([250, 251, 252]).toString("base64url"),
    );
    expect(toBase64url(all.buffer)).toBe(Buffer.from(all).toString("base64url"));
  });

  it("fromBase64url - padding is accepted; base64's + and /, spaces and impossible lengths are refused", () => {
    expect(fromBase64url("AQI=")).toEqual(Uint8Array.from([1, 2]));
    for (const bad of ["a+b/", "ab cd", "abcde", "=abc", "ab\n"])
      expect(() => fromBase64url(bad), bad).toThrow(TypeError);
  });

  it("creationOptionsFromJSON, requestOptionsFromJSON - the challenge, user id and credential ids become bytes; the rest stays", () => {
    const creation = creationOptionsFromJSON({
      challenge: "AQID",
      rp: { id: "app.example.test", name: "App" },
      user: { id: "BAU", name: ADA, displayName: ADA },
      excludeCredentials: [{ id: "Bgc", type: "public-key", transports: ["internal"] }],
      authenticatorSelection: { residentKey: "required" },
    });
    expect(creation).toMatchObject({
      challenge: Uint8Array.from([1, 2, 3]),
      rp: { id: "app.example.test", name: "App" },
      user: { id: Uint8Array.from([4, 5]), name: ADA, displayName: ADA },
      excludeCredentials: [{ id: Uint8Array.from([6, 7]), type: "public-key", transports: ["internal"] }],
      authenticatorSelection: { residentKey: "required" },
    });
    const request = requestOptionsFromJSON({
      challenge: "AQID",
      rpId: "app.example.test",
      userVerification: "required",
    });
    expect(request).toEqual({
      challenge: Uint8Array.from([1, 2, 3]),
      rpId: "app.example.test",
      userVerification: "required",
    });
    expect(
      requestOptionsFromJSON({ challenge: "", allowCredentials: [{ id: "Bgc", type: "public-key" }] }),
    ).toMatchObject({
      allowCredentials: [{ id: Uint8Array.from([6, 7]) }],
    });
  });
});

/** An ArrayBuffer of base64url text, as a browser's credential holds its fields. */
const buffer = (text: string): ArrayBuffer => {
  const bytes = fromBase64url(text);
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
};

/**
 * `navigator.credentials` over a software authenticator: it takes binary options (and checks
 * they are), answers with a credential of ArrayBuffers; what each call was asked is kept.
 */
function browserCredentials(authenticator: SoftwareAuthenticator) {
  const asked: { kind: "create" | "get"; publicKey: Record<string, unknown>; mediation?: string }[] = [];
  const credentials: CredentialsLike = {
    async create({ publicKey }) {
      const options = publicKey as {
        challenge: Uint8Array;
        user: { id: Uint8Array; name: string };
        rp: { name: string };
      };
      asked.push({ kind: "create", publicKey: options });
      expect(options.challenge).toBeInstanceOf(Uint8Array);
      expect(options.user.id).toBeInstanceOf(Uint8Array);
      const json = authenticator.register({
        ...options,
        challenge: toBase64url(options.challenge),
        user: { ...options.user, id: toBase64url(options.user.id) },
      });
      return {
        id: json.id,
        rawId: buffer(json.rawId),
        type: json.type,
        authenticatorAttachment: "platform",
        response: {
          clientDataJSON: buffer(json.response.clientDataJSON),
          attestationObject: buffer(json.response.attestationObject),
          getTransports: () => json.response.transports,
        },
        getClientExtensionResults: () => ({}),
      };
    },
    async get({ publicKey, mediation }) {
      const options = publicKey as {
        challenge: Uint8Array;
        rpId?: string;
        allowCredentials?: { id: Uint8Array }[];
      };
      asked.push({ kind: "get", publicKey: options, ...(mediation ? { mediation } : {}) });
      expect(options.challenge).toBeInstanceOf(Uint8Array);
      const json = authenticator.authenticate({
        challenge: toBase64url(options.challenge),
        ...(options.rpId ? { rpId: options.rpId } : {}),
        ...(options.allowCredentials
          ? { allowCredentials: options.allowCredentials.map((entry) => ({ id: toBase64url(entry.id) })) }
          : {}),
      });
      return {
        id: json.id,
        rawId: buffer(json.rawId),
        type: json.type,
        response: {
          clientDataJSON: buffer(json.response.clientDataJSON),
          authenticatorData: buffer(json.response.authenticatorData),
          signature: buffer(json.response.signature),
          userHandle: buffer(json.response.userHandle),
        },
        getClientExtensionResults: () => ({}),
      };
    },
  };
  return { credentials, asked };
}

/** A server with passkeys on (RP ID app.example.test) and Ada registered with a password. */
async function startServer() {
  const emails: EmailMessage[] = [];
  const auth = createAuth({
    secret: "client-passkey-secret-yRoBaYyJRXBp6a-YqxktwBnOleaom8qQEaUli8-oBtc",
    stores: createMemoryStores(),
    passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
    logger: silentLogger,
    appOrigin: APP_ORIGIN,
    webauthn: { rpName: "Example" },
    mailer: { send: async (message) => void emails.push(message) },
  });
  await auth.ready();
  const app = express();
  const baseUrl = await listenWithAuth(app, auth);
  const browser = () => createAuthClient({ baseUrl, locks: null, channel: null, fetch: cookieJarFetch() });
  await browser().register({ email: ADA, password: PASSWORD });
  return { auth, browser, baseUrl };
}

describe("passkey ceremonies against a real server", () => {
  it("registerPasskey, signInWithPasskey, stepUpWithPasskey - add, sign in without an email (discoverable), step up, rename, remove", async () => {
    const server = await startServer();
    const authenticator = createSoftwareAuthenticator({ origin: APP_ORIGIN });
    const { credentials, asked } = browserCredentials(authenticator);
    const first = server.browser();
    await first.login({ email: ADA, password: PASSWORD });
    // Adding needs a fresh step-up.
    const refused = await registerPasskey(first, { credentials, name: "Laptop" }).catch(
      (error: PortcullisError) => error,
    );
    expect(refused).toMatchObject({ code: "STEP_UP_REQUIRED" });
    await first.stepUp({ password: PASSWORD });
    const added = await registerPasskey(first, { credentials, name: "Laptop" });
    expect(added).toMatchObject({ id: authenticator.credentialIds[0], name: "Laptop" });
    expect(asked[0]).toMatchObject({
      kind: "create",
      publicKey: { rp: { id: "app.example.test", name: "Example" } },
    });
    await first.logout();

    // Another browser, no email typed: the authenticator picks its passkey for the RP ID.
    const second = server.browser();
    // rememberMe as a function is read after the user picked a passkey (not when the request started).
    const order: string[] = [];
    const watched: CredentialsLike = {
      create: credentials.create,
      get: async (options) => {
        order.push("get");
        return credentials.get(options);
      },
    };
    const signedIn = await signInWithPasskey(second, {
      credentials: watched,
      mediation: "conditional",
      rememberMe: () => {
        order.push("rememberMe");
        return false;
      },
    });
    expect(order).toEqual(["get", "rememberMe"]);
    expect(signedIn).toMatchObject({ twoFactorRequired: false, user: { email: ADA } });
    expect(second.state).toBe("signed-in");
    expect(asked[1]).toMatchObject({ kind: "get", mediation: "conditional" });
    expect(asked[1]?.publicKey.allowCredentials).toBeUndefined();
    expect(await second.me()).toMatchObject({ email: ADA });

    // Email-first: the account's passkey is named, as bytes.
    const third = server.browser();
    await signInWithPasskey(third, { credentials, email: ADA });
    const named = asked[2]?.publicKey.allowCredentials as { id: Uint8Array }[];
    expect(named.map((entry) => toBase64url(entry.id))).toEqual([added.id]);

    // The passkey confirms the user: renaming and removing need that step-up.
    expect(
      await second.passkeys.rename(added.id, "Work laptop").catch((error: PortcullisError) => error.code),
    ).toBe("STEP_UP_REQUIRED");
    expect(await stepUpWithPasskey(second, { credentials })).toMatchObject({ twoFactorRequired: false });
    expect(await second.passkeys.rename(added.id, "Work laptop")).toMatchObject({
      id: added.id,
      name: "Work laptop",
    });
    expect((await second.passkeys.list()).passkeys).toMatchObject([{ id: added.id, name: "Work laptop" }]);
    expect(await second.passkeys.delete(added.id)).toEqual({ success: true });
    expect((await second.passkeys.list()).passkeys).toEqual([]);
    // Gone: it signs nobody in any more.
    const gone = await signInWithPasskey(server.browser(), { credentials }).catch(
      (error: PortcullisError) => error,
    );
    expect(gone).toMatchObject({ status: 401, code: "PASSKEY_UNKNOWN" });
  });

  it("signInWithPasskey - without navigator.credentials: a TypeError before any request; the signal and mediation reach get()", async () => {
    let requests = 0;
    const counting: typeof fetch = (input, init) => {
      requests += 1;
      return fetch(input, init);
    };
    const server = await startServer();
    const client = createAuthClient({ baseUrl: server.baseUrl, locks: null, channel: null, fetch: counting });
    await expect(signInWithPasskey(client)).rejects.toThrow(TypeError);
    await expect(stepUpWithPasskey(client)).rejects.toThrow(TypeError);
    await expect(registerPasskey(client)).rejects.toThrow(TypeError);
    expect(requests).toBe(0);
    const controller = new AbortController();
    const seen: { mediation?: string; signal?: AbortSignal }[] = [];
    const refusing: CredentialsLike = {
      create: async () => {
        throw new Error("not used");
      },
      get: async (options) => {
        seen.push(options);
        throw new DOMException("The operation either timed out or was not allowed.", "NotAllowedError");
      },
    };
    const refused = signInWithPasskey(client, {
      credentials: refusing,
      mediation: "conditional",
      signal: controller.signal,
    });
    await expect(refused).rejects.toMatchObject({ name: "NotAllowedError" });
    expect(seen).toEqual([expect.objectContaining({ mediation: "conditional", signal: controller.signal })]);
    expect(requests).toBe(1);
    expect(client.state).not.toBe("signed-in");
  });

  it("credentialToJSON - a credential's binary fields, transports and attachment, as the server reads them", () => {
    const json = credentialToJSON({
      id: "AQI",
      rawId: Uint8Array.from([1, 2]).buffer,
      type: "public-key",
      authenticatorAttachment: "cross-platform",
      response: {
        clientDataJSON: new TextEncoder().encode("{}").buffer,
        attestationObject: Uint8Array.from([9]),
        getTransports: () => ["usb", "nfc"],
      },
      getClientExtensionResults: () => ({ credProps: { rk: true } }),
    });
    expect(json).toEqual({
      id: "AQI",
      rawId: "AQI",
      type: "public-key",
      authenticatorAttachment: "cross-platform",
      response: { clientDataJSON: "e30", attestationObject: "CQ", transports: ["usb", "nfc"] },
      clientExtensionResults: { credProps: { rk: true } },
    });
  });
});
