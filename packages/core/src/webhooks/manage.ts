import type { AuditLog } from "../audit/recorder.js";
import { AuthError, guardPort, ValidationError } from "../errors.js";
import { type SecurityEvents, type SecurityEventType, withActor } from "../events.js";
import type { Call, RequestContext } from "../model.js";
import type { ResolvedWebhooksOptions } from "../options/webhook-options.js";
import { actingMember } from "../organizations/acting.js";
import { assertPermission, type OrganizationDeps } from "../organizations/membership.js";
import type { AuditLogStore } from "../ports/audit-log-store.js";
import type { Clock } from "../ports/clock.js";
import type { WebhookEndpoint, WebhookSecret, WebhookStore } from "../ports/webhook-store.js";
import { type AdminActorDeps, actingAdmin } from "../sessions/admin-actor.js";
import { randomHex } from "../tokens/random.js";
import type { SecretBox } from "../two-factor/secret-box.js";
import { requireStepUp, type SettingsDeps } from "../two-factor/settings.js";
import { fieldIssue } from "../validation.js";
import { checkWebhookUrl } from "./address-guard.js";
import { newWebhookSecret } from "./signing.js";
import { isWebhookId } from "./views.js";

/** How long a rotated-out secret keeps signing beside the new one: 24 hours. */
export const WEBHOOK_SECRET_OVERLAP_MS = 24 * 3600 * 1000;
/** The most rotated-out secrets an endpoint keeps signing with (the newest ones). */
export const MAX_ROTATED_WEBHOOK_SECRETS = 3;

/** What managing webhooks reads: the option, the stores, the secret box, the clock. */
export interface WebhookDeps {
  options: {
    webhooks?: ResolvedWebhooksOptions;
    stores: { webhooks?: WebhookStore | undefined };
  };
  audit: Pick<AuditLog, "store">;
  secretBox: SecretBox;
  clock: Clock;
}

/** The stores and the option while webhooks are on. */
export interface Webhooks {
  store: WebhookStore;
  auditLog: AuditLogStore;
  options: NonNullable<ResolvedWebhooksOptions>;
}

/** The stores and option, or `NOT_FOUND` when webhooks are off (their routes answer as unknown ones). */
export function webhooksOn(deps: Pick<WebhookDeps, "options" | "audit">): Webhooks {
  const store = deps.options.stores.webhooks;
  const options = deps.options.webhooks;
  const auditLog = deps.audit.store;
  if (store === undefined || options === undefined || auditLog === undefined)
    throw new AuthError("NOT_FOUND");
  return { store, auditLog, options };
}

/** What deciding who manages which endpoints reads: organizations, the back office, step-up, events. */
export type WebhookActorDeps = OrganizationDeps &
  AdminActorDeps &
  Pick<SettingsDeps, "users" | "stepUpTokens"> & { events: SecurityEvents };

/** Who manages endpoints, and of which scope. */
export interface WebhookActing {
  /** The organization whose endpoints are managed; null for the deployment's own. */
  organizationId: string | null;
  /** The acting user (a member with `webhook:manage`, or a back-office admin). */
  userId: string;
  sessionId: string;
  request: RequestContext;
  /** The events, naming the admin as actor for the deployment's endpoints. */
  events: SecurityEvents;
}

/**
 * Who manages the endpoints of `organizationId` (a member with `webhook:manage`: a non-member gets
 * `ORGANIZATION_NOT_FOUND`, a member without it `PERMISSION_DENIED`; with `stepUp`, then a live
 * step-up token) or, without it, the deployment's (the back office's check: signed in, no
 * impersonation, `admin.authorize`, a live step-up token). Fails closed: without a principal,
 * `AUTHENTICATION_REQUIRED`, whatever else the call carries.
 */
export async function actingOnWebhooks(
  ctx: WebhookActorDeps,
  call: Call,
  organizationId: string | undefined,
  { stepUp }: { stepUp: boolean },
): Promise<WebhookActing> {
  const request = call.request ?? {};
  if (organizationId === undefined) {
    const userId = await actingAdmin(ctx, call);
    const sessionId = call.principal?.sessionId ?? "";
    const { events } = withActor(ctx, "admin", userId);
    return { organizationId: null, userId, sessionId, request, events };
  }
  const { principal, member } = await actingMember(ctx, call, organizationId);
  assertPermission(member, "webhook:manage");
  if (stepUp) await requireStepUp(ctx, call);
  return {
    organizationId,
    userId: principal.userId,
    sessionId: principal.sessionId,
    request,
    events: ctx.events,
  };
}

/** Emits `type` for what `acting` did to an endpoint of its scope. */
export function emitWebhookEvent(acting: WebhookActing, type: SecurityEventType): void {
  acting.events.emit(type, {
    ...acting.request,
    userId: acting.userId,
    sessionId: acting.sessionId,
    actor: acting.userId,
    ...(acting.organizationId === null ? {} : { organizationId: acting.organizationId }),
  });
}

/**
 * The endpoint `id` of `organizationId`'s scope (null: the deployment's); `NOT_FOUND` for an id of
 * another shape (no store read), one that does not exist, and one of another scope alike.
 */
export async function endpointInScope(
  store: WebhookStore,
  organizationId: string | null,
  id: string,
): Promise<WebhookEndpoint> {
  if (!isWebhookId(id)) throw new AuthError("NOT_FOUND");
  const endpoint = await guardPort("DATABASE_FAILURE", () => store.findEndpoint(id));
  if (endpoint === null || endpoint.organizationId !== organizationId) throw new AuthError("NOT_FOUND");
  return endpoint;
}

/**
 * `VALIDATION_FAILED` at `url` (rule `webhook_url_not_allowed`) unless the URL may receive
 * webhooks: https, no credentials, and every address its host resolves to public (unless
 * `allowPrivateNetworks`). A host that does not resolve yet is accepted; every send checks again.
 */
export async function assertWebhookUrl(options: Webhooks["options"], url: string): Promise<void> {
  const check = await checkWebhookUrl(url, { allowPrivateNetworks: options.allowPrivateNetworks });
  if (!check.ok) throw new ValidationError([fieldIssue("url", "webhook_url_not_allowed")]);
}

/**
 * The deployment's head: the `seq` of the newest audit entry (0 when there is none). A new
 * endpoint starts there, so it receives what happens after it was made.
 */
export async function auditHead(auditLog: AuditLogStore): Promise<number> {
  const [newest] = await guardPort("DATABASE_FAILURE", () => auditLog.list({ order: "desc", limit: 1 }));
  return newest?.seq ?? 0;
}

/**
 * Deletes the endpoints of `organizationId` (with their deliveries and leases), when a webhook
 * store is configured: the organization is being deleted, so nothing of it is delivered again.
 * Each step may be repeated: a deletion interrupted by a store failure is finished by a retry.
 */
export async function deleteOrganizationEndpoints(
  store: WebhookStore | undefined,
  organizationId: string,
): Promise<void> {
  if (store === undefined) return;
  const endpoints = await guardPort("DATABASE_FAILURE", () => store.listEndpoints(organizationId));
  for (const endpoint of endpoints)
    await guardPort("DATABASE_FAILURE", () => store.deleteEndpoint(endpoint.id));
}

/**
 * A new id of an endpoint or a delivery: 128 random bits, 32 lowercase hex (a slice of the core's
 * CSPRNG pool: one delivery per message is written, and a call into the CSPRNG each was a fifth of
 * the engine's own CPU per message in bench/webhook-engine.mjs's profile).
 */
export const newWebhookId = (): string => randomHex(16);

/** A new signing secret: the plain `whsec_…` (shown once) and its sealed form (what the store keeps). */
export async function mintWebhookSecret(
  secretBox: SecretBox,
): Promise<{ secret: string; sealed: WebhookSecret }> {
  const secret = newWebhookSecret();
  return { secret, sealed: { sealed: await secretBox.seal(secret), expiresAt: null } };
}

/**
 * The secrets after a rotation at `now`: the new one first; the one it replaces signs for
 * `WEBHOOK_SECRET_OVERLAP_MS` more; rotated-out ones that expired go, and at most
 * `MAX_ROTATED_WEBHOOK_SECRETS` of the others stay (the newest).
 */
export function rotatedSecrets(
  current: readonly WebhookSecret[],
  fresh: WebhookSecret,
  now: number,
): WebhookSecret[] {
  const kept = current
    .filter((secret) => secret.expiresAt === null || secret.expiresAt > now)
    .map((secret) =>
      secret.expiresAt === null ? { ...secret, expiresAt: now + WEBHOOK_SECRET_OVERLAP_MS } : secret,
    )
    .sort((a, b) => (b.expiresAt ?? 0) - (a.expiresAt ?? 0))
    .slice(0, MAX_ROTATED_WEBHOOK_SECRETS);
  return [fresh, ...kept];
}
