import {
  type AuditEntry,
  type AuditLogStore,
  type Auth,
  type AuthOptions,
  type Call,
  createArgon2Hasher,
  createAuth,
  type Logger,
  silentLogger,
  type WebhookStore,
} from "@portcullis/core";
import type { WebhookReceiver } from "@portcullis/testing";

/**
 * Test support (not part of the package's exports) for the webhook fault tests of store-sql and
 * store-redis: an auth with webhooks on, a deployment endpoint, events caused through real calls,
 * and what a receiver got measured against the audit log (the outbox).
 */

/** Random (`createAuth` refuses made-up ones); the child process of the kill test uses it too (the secret box). */
export const WEBHOOK_FAULTS_SECRET = "webhook-faults-secret-Zr8mQ3vXk6Lp1Tb9Nw4Hc7Jd2Fg5Ya0Ue3Io8Rs6WtB";
const PASSWORD = "correct horse battery staple";
/** What the endpoints of these tests ask for: what registrations and failed sign-ins write. */
export const FAULT_EVENTS = ["user.created", "login.failed"];

export type FaultWebhooks = NonNullable<AuthOptions["webhooks"]>;
/** Stores with the two webhooks needs: the outbox and the endpoints. */
export type FaultStores = AuthOptions["stores"] & { auditLog: AuditLogStore; webhooks: WebhookStore };

/**
 * An auth over `stores` with webhooks on (`allowPrivateNetworks`, so the receiver on 127.0.0.1 is
 * allowed), the back office for `admin@` addresses, cheap argon2 and no emails kept.
 */
export function webhookAuth(stores: AuthOptions["stores"], webhooks: FaultWebhooks, logger?: Logger): Auth {
  return createAuth({
    secret: WEBHOOK_FAULTS_SECRET,
    stores,
    appOrigin: "https://app.example.test",
    logger: logger ?? silentLogger,
    mailer: { send: async () => {} },
    email: { loginAlerts: false },
    passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
    admin: { authorize: (_principal, user) => user.email.startsWith("admin@") },
    webhooks: { allowPrivateNetworks: true, ...webhooks },
  });
}

/** A back-office admin, signed in, with a step-up token (the deployment's endpoints need both). */
export async function adminCall(auth: Auth): Promise<Call> {
  const email = "admin@example.test";
  await auth.host.createUser({}, { email, password: PASSWORD, emailVerified: true });
  const login = await auth.login({}, { email, password: PASSWORD });
  if (login.twoFactorRequired) throw new Error("unexpected 2FA");
  const principal = await auth.authenticate({ token: login.accessToken });
  const stepped = await auth.stepUp({ principal }, { password: PASSWORD });
  if (stepped.twoFactorRequired) throw new Error("unexpected 2FA");
  return { principal, stepUpToken: stepped.stepUpToken };
}

/**
 * A deployment endpoint for `FAULT_EVENTS` made through `auth.webhooks` by `admin`, sending to
 * `receiver` (which learns its secret); its id and the audit `seq` it starts after.
 */
export async function faultEndpoint(
  auth: Auth,
  admin: Call,
  receiver: WebhookReceiver,
  store: WebhookStore,
): Promise<{ id: string; cursor: number }> {
  const { endpoint, secret } = await auth.webhooks.create(admin, { url: receiver.url, events: FAULT_EVENTS });
  receiver.secrets.push(secret);
  const stored = await store.findEndpoint(endpoint.id);
  if (!stored) throw new Error("the endpoint was not stored");
  return { id: endpoint.id, cursor: stored.cursor };
}

/** The user agent that marks call `index` of `tag`: its audit entry carries it, so an answered call's entry can be found. */
export const callMark = (tag: string, index: number) => `${tag} call ${index}`;

/**
 * One event through a real call: every `registerEvery`-th index (0 included) registers
 * `<tag>-<index>@example.test` (`user.created`), the others sign in to an unknown address
 * (`login.failed`, answered `INVALID_CREDENTIALS`, the cheaper call). Resolves to the answer's
 * code, `OK` for a registration.
 */
export function causeEvent(auth: Auth, tag: string, index: number, registerEvery = 2): Promise<string> {
  const call = { request: { userAgent: callMark(tag, index) } };
  const email = `${tag}-${index}@example.test`;
  const answer =
    index % registerEvery === 0
      ? auth.register(call, { email, password: PASSWORD })
      : auth.login(call, { email, password: PASSWORD });
  return answer.then(
    () => "OK",
    (error: { code?: string }) => error.code ?? String(error),
  );
}

/** The answers that mean the call's event was written: a registration's OK, a failed sign-in's code. */
export const EVENT_ANSWERS = new Set(["OK", "INVALID_CREDENTIALS"]);

/**
 * `count` events through `causeEvent` (indexes from `from`, a registration every `registerEvery`),
 * `lanes` calls at a time, then `auth.idle()`; the answers' codes, counted.
 */
export async function causeEvents(
  auth: Auth,
  tag: string,
  count: number,
  { lanes = 1, from = 0, registerEvery = 2 } = {},
): Promise<Record<string, number>> {
  const codes: Record<string, number> = {};
  let next = from;
  const lane = async () => {
    while (next < from + count) {
      const code = await causeEvent(auth, tag, next++, registerEvery);
      codes[code] = (codes[code] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
  await auth.idle();
  return codes;
}

/** The audit entries after `afterSeq` that a `FAULT_EVENTS` endpoint wants, oldest first. */
export async function wantedEntries(auditLog: AuditLogStore, afterSeq: number): Promise<AuditEntry[]> {
  const wanted: AuditEntry[] = [];
  let cursor = afterSeq;
  for (;;) {
    const page = await auditLog.list({ order: "asc", afterSeq: cursor, limit: 1000 });
    wanted.push(...page.filter((entry) => FAULT_EVENTS.includes(entry.type)));
    if (page.length < 1000) return wanted;
    cursor = (page.at(-1) as AuditEntry).seq;
  }
}

/** How many of `entries` the receiver has got (at least once). */
export function receivedOf(receiver: WebhookReceiver, entries: readonly AuditEntry[]): number {
  const ids = new Set(receiver.received.map((message) => message.id));
  return entries.filter((entry) => ids.has(entry.id)).length;
}

/**
 * What `receiver` got against the entries it should have: `missing` (never arrived), `unexpected`
 * (not one of them), `outOfOrder` (first arrivals whose `seq` is below the one before: each
 * endpoint gets its messages in the order of the audit log), and the distinct ids and repeats.
 */
export function deliveryFigures(receiver: WebhookReceiver, entries: readonly AuditEntry[]) {
  const seqOf = new Map(entries.map((entry) => [entry.id, entry.seq]));
  const firsts = [...new Set(receiver.received.map((message) => message.id))];
  const arrived = new Set(firsts);
  let outOfOrder = 0;
  for (let i = 1; i < firsts.length; i++)
    if ((seqOf.get(firsts[i] as string) ?? 0) < (seqOf.get(firsts[i - 1] as string) ?? 0)) outOfOrder++;
  return {
    expected: entries.length,
    ...receiver.counts(),
    missing: entries.filter((entry) => !arrived.has(entry.id)).length,
    unexpected: firsts.filter((id) => !seqOf.has(id)).length,
    outOfOrder,
  };
}

/**
 * Polls `check` every 20 ms until it holds; rejects naming `what` after `timeoutMs` (generous: the
 * tests share a 2-core machine). Resolves to how long it took.
 */
export async function until(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 30_000,
): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return Date.now() - started;
}

/** Waits (up to `timeoutMs`, by default `until`'s) until every one of `entries` reached `receiver`: then its `deliveryFigures`. */
export async function everyEntryDelivered(
  receiver: WebhookReceiver,
  entries: readonly AuditEntry[],
  timeoutMs?: number,
) {
  await until(
    "every entry at the receiver",
    () => receivedOf(receiver, entries) === entries.length,
    timeoutMs,
  );
  return deliveryFigures(receiver, entries);
}

/** A logger that counts the lines of each `event` (the worker's `webhook.store_failed`, …). */
export function countingLogger(): { logger: Logger; count(event: string): number } {
  const counts = new Map<string, number>();
  const note = (object: Record<string, unknown>) => {
    const event = String(object.event ?? "");
    counts.set(event, (counts.get(event) ?? 0) + 1);
  };
  return {
    logger: { debug: note, info: note, warn: note, error: note },
    count: (event) => counts.get(event) ?? 0,
  };
}

/** `store` with every attempt it recorded counted (for telling which instance sent what). */
export function countingWebhookStore(store: WebhookStore): { store: WebhookStore; recorded(): number } {
  let recorded = 0;
  const counted = new Proxy(store, {
    get(target, key) {
      const value = Reflect.get(target, key, target);
      if (typeof value !== "function") return value;
      if (key !== "recordAttempt") return value.bind(target);
      return async (...args: Parameters<WebhookStore["recordAttempt"]>) => {
        const written = await target.recordAttempt(...args);
        if (written) recorded++;
        return written;
      };
    },
  });
  return { store: counted, recorded: () => recorded };
}
