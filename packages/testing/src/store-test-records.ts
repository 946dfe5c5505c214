// Records that stores' own tests (beside the conformance suites) write and read back: a plain
// user, and webhook endpoints, deliveries and attempts.
import { randomBytes } from "node:crypto";
import type { UserRecord, WebhookAttempt, WebhookDelivery, WebhookEndpoint } from "@portcullis/core";

/** When the sample webhook records are made unless told otherwise, in milliseconds since the Unix epoch. */
export const SAMPLE_T0 = 1_700_000_000_000;

/** A user `u1`, ada@example.test, unverified, without a name, a password or a second factor, made at 1; with `overrides`. */
export const sampleUserRecord = (overrides: Partial<UserRecord> = {}): UserRecord => ({
  id: "u1",
  email: "ada@example.test",
  emailVerified: false,
  name: null,
  passwordHash: null,
  identityProviders: [],
  twoFactor: { methods: [], preferredMethod: null, totpSecretEncrypted: null, recoveryCodeHashes: [] },
  createdAt: 1,
  ...overrides,
});

const newId = () => randomBytes(16).toString("hex");

/**
 * An enabled endpoint of the deployment (no organization) with a new id, for every event, at
 * https://hooks.example.com/in, with one sealed secret, made at `SAMPLE_T0`, its cursor at 0;
 * with `overrides`.
 */
export const sampleWebhookEndpoint = (overrides: Partial<WebhookEndpoint> = {}): WebhookEndpoint => ({
  id: newId(),
  organizationId: null,
  url: "https://hooks.example.com/in",
  events: ["*"],
  enabled: true,
  disabledReason: null,
  secrets: [{ sealed: "sealed", expiresAt: null }],
  createdBy: null,
  createdAt: SAMPLE_T0,
  cursor: 0,
  ...overrides,
});

/**
 * A redelivery of seq 1 (`login.succeeded`, a new id and entry id) to `endpointId`, pending and
 * never attempted, made and due at `SAMPLE_T0`; with `overrides`.
 */
export const sampleWebhookDelivery = (
  endpointId: string,
  overrides: Partial<WebhookDelivery> = {},
): WebhookDelivery => ({
  id: newId(),
  endpointId,
  entryId: newId(),
  seq: 1,
  type: "login.succeeded",
  status: "pending",
  attempts: 0,
  createdAt: SAMPLE_T0,
  lastAttemptAt: null,
  lastStatusCode: null,
  lastError: null,
  nextAttemptAt: SAMPLE_T0,
  redelivery: true,
  ...overrides,
});

/** A first attempt, at `at`, that succeeded (HTTP 200): nothing left to retry. */
export const succeededWebhookAttempt = (at: number): WebhookAttempt => ({
  status: "succeeded",
  attempts: 1,
  lastAttemptAt: at,
  lastStatusCode: 200,
  lastError: null,
  nextAttemptAt: null,
});
