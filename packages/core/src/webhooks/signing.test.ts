import { Webhook, WebhookVerificationError } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { newWebhookSecret, secretsInUse, signWebhook } from "./signing.js";

const body = JSON.stringify({ type: "login.succeeded", data: { id: "e1" } });

describe("webhook signing", () => {
  it("newWebhookSecret - whsec_ and the base64 of 24 random bytes, different each time", () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(secret.slice("whsec_".length), "base64")).toHaveLength(24);
    expect(newWebhookSecret()).not.toBe(secret);
  });

  it("signWebhook - the same signature, byte for byte, as the standardwebhooks package's own sign", () => {
    const bodies = [body, JSON.stringify({ data: { name: "Zoë 🚀 Ünïcødé", empty: "" } }), ""];
    for (const [n, text] of bodies.entries()) {
      const secret = newWebhookSecret();
      const at = Date.UTC(2026, 10, 30, 12, 0, n);
      const headers = signWebhook({ id: `e${n}`, timestampMs: at + 999, body: text, secrets: [secret] });
      expect(headers["webhook-signature"]).toBe(new Webhook(secret).sign(`e${n}`, new Date(at), text));
    }
  });

  it("signWebhook - a receiver verifies the message with the secret, id and timestamp in the headers", () => {
    const secret = newWebhookSecret();
    const now = Date.now();
    const headers = signWebhook({ id: "e1", timestampMs: now, body, secrets: [secret] });
    expect(headers["webhook-id"]).toBe("e1");
    expect(headers["webhook-timestamp"]).toBe(String(Math.floor(now / 1000)));
    expect(headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
    expect(new Webhook(secret).verify(body, { ...headers })).toEqual(JSON.parse(body));
  });

  it("signWebhook - another secret, a changed body or another id does not verify", () => {
    const secret = newWebhookSecret();
    const headers = signWebhook({ id: "e1", timestampMs: Date.now(), body, secrets: [secret] });
    expect(() => new Webhook(newWebhookSecret()).verify(body, { ...headers })).toThrow(
      WebhookVerificationError,
    );
    expect(() => new Webhook(secret).verify(`${body} `, { ...headers })).toThrow(WebhookVerificationError);
    expect(() => new Webhook(secret).verify(body, { ...headers, "webhook-id": "e2" })).toThrow(
      WebhookVerificationError,
    );
  });

  it("signWebhook - during a rotation both the new and the old secret verify the one message", () => {
    const [current, old] = [newWebhookSecret(), newWebhookSecret()];
    const headers = signWebhook({ id: "e1", timestampMs: Date.now(), body, secrets: [current, old] });
    expect(headers["webhook-signature"].split(" ")).toHaveLength(2);
    expect(new Webhook(current).verify(body, { ...headers })).toBeTruthy();
    expect(new Webhook(old).verify(body, { ...headers })).toBeTruthy();
  });

  it("signWebhook - a redelivery keeps the id; a timestamp too old fails verification", () => {
    const secret = newWebhookSecret();
    const old = signWebhook({ id: "e1", timestampMs: Date.now() - 3600_000, body, secrets: [secret] });
    expect(old["webhook-id"]).toBe("e1");
    expect(() => new Webhook(secret).verify(body, { ...old })).toThrow(/too old/);
    expect(() => signWebhook({ id: "e1", timestampMs: Date.now(), body, secrets: [] })).toThrow(TypeError);
  });

  it("secretsInUse - the current secret and rotated-out ones until they expire, current first", () => {
    const secrets = [
      { sealed: "current", expiresAt: null },
      { sealed: "rotated", expiresAt: 2_000 },
      { sealed: "expired", expiresAt: 1_000 },
    ];
    expect(secretsInUse(secrets, 1_000).map((secret) => secret.sealed)).toEqual(["current", "rotated"]);
    expect(secretsInUse(secrets, 2_000).map((secret) => secret.sealed)).toEqual(["current"]);
  });
});
