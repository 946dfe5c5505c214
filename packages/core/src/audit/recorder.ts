import type { SecurityEvent } from "../events.js";
import type { AuditDraft, AuditLogStore } from "../ports/audit-log-store.js";
import type { Clock } from "../ports/clock.js";
import type { Logger } from "../ports/logger.js";
import type { BackgroundTasks } from "../support/background.js";
import { coalescedWrites } from "../support/coalesced-writes.js";
import type { PendingWrites } from "../support/pending-writes.js";
import { auditDraft, newAuditId } from "./draft.js";
import type { AuditSeal } from "./seal.js";

/** The most drafts one `append` carries; more wait for the next. */
export const MAX_AUDIT_BATCH = 500;
/** How often one instance sweeps at most: once an hour. */
export const AUDIT_SWEEP_INTERVAL_MS = 3600 * 1000;

/** The audit log of one `createAuth` (docs/audit-log.md). */
export interface AuditLog {
  /** The store, or undefined when none is configured (nothing is recorded; the routes are off). */
  store: AuditLogStore | undefined;
  seal: AuditSeal;
  retentionMs: number;
  /** Drafts `event` into the next batch; never waits, never throws. */
  observe(event: SecurityEvent): void;
  /** Resolves once every draft observed so far is written, or its write failed (for tests and shutdown). */
  flushed(): Promise<void>;
}

/**
 * Records every security event in the audit log. The drafts of one event-loop turn go into one
 * `append` (scheduled with `setImmediate`), and one instance keeps at most one `append` in
 * flight: the next batch waits and grows meanwhile, so a burst takes the store's lock on the
 * deployment's head once per batch, not once per event. Each draft's write is tracked in
 * `writes`, so a call's answer comes after the entries its events started are written
 * (`PendingWrites.within`). A failed `append` is logged (`audit.write_failed`, with the types and
 * the count lost) and never fails the call. After an append, and at most once an hour per
 * instance (`AUDIT_SWEEP_INTERVAL_MS`, on the core's clock), entries older than the retention
 * are swept (`sweepAudit`; a failure is logged `audit.sweep_failed`). After each append that
 * wrote, `onAppended` is called (the webhook worker is woken by it); it must not throw or wait.
 */
export function createAuditRecorder(options: {
  store: AuditLogStore | undefined;
  seal: AuditSeal;
  retentionDays: number;
  clock: Clock;
  logger: Logger;
  background: BackgroundTasks;
  writes: PendingWrites;
  /** Called after each append that wrote; must not throw or wait. */
  onAppended?: (() => void) | undefined;
}): AuditLog {
  const { store, seal, clock, logger, background, writes, onAppended } = options;
  const retentionMs = options.retentionDays * 24 * 3600 * 1000;
  let lastSweep = Number.NEGATIVE_INFINITY;

  const sweep = async (target: AuditLogStore) => {
    const now = clock.now();
    if (now - lastSweep < AUDIT_SWEEP_INTERVAL_MS) return;
    lastSweep = now;
    try {
      await target.sweepAudit(now - retentionMs);
    } catch (error) {
      logger.error({ event: "audit.sweep_failed", err: String(error) }, "could not sweep the audit log");
    }
  };
  const write = async (target: AuditLogStore, drafts: AuditDraft[]) => {
    try {
      await target.append(drafts, seal.seal);
      onAppended?.();
    } catch (error) {
      const types = [...new Set(drafts.map((draft) => draft.type))];
      logger.error(
        { event: "audit.write_failed", count: drafts.length, types, err: String(error) },
        "could not write audit entries",
      );
    }
    await sweep(target);
  };
  const batches =
    store &&
    coalescedWrites<AuditDraft>({
      maxBatch: MAX_AUDIT_BATCH,
      write: (drafts) => write(store, drafts),
      // `auth.idle()` waits for a batch from the moment it opens, not only once its append starts.
      opened: (done) => background.run("audit.write_failed", () => done),
    });
  return {
    store,
    seal,
    retentionMs,
    observe(event) {
      if (!batches) return;
      writes.track(batches.add(auditDraft(event, newAuditId())));
    },
    flushed: () => batches?.flushed() ?? Promise.resolve(),
  };
}
