import { createActivityRecorder } from "../activity/activity.js";
import { createAuditRecorder } from "../audit/recorder.js";
import { createAuditSeal } from "../audit/seal.js";
import { createSecurityEvents, type SecurityEvent } from "../events.js";
import type { ResolvedAuthOptions } from "../options/options.js";
import type { Clock } from "../ports/clock.js";
import type { Logger } from "../ports/logger.js";
import type { BackgroundTasks } from "../support/background.js";
import { createPendingWrites } from "../support/pending-writes.js";

/**
 * The security events and what records them: each user's activity and the audit log, whose writes
 * a call's answer waits for (one `PendingWrites` for both). `onAppended` runs after each audit
 * append that wrote (it wakes the webhook worker).
 */
export function eventRecorders(
  options: ResolvedAuthOptions,
  clock: Clock,
  logger: Logger,
  background: BackgroundTasks,
  onAppended?: () => void,
) {
  const { activity: activityStore, auditLog } = options.stores;
  const plugin = options.oauthProvider;
  const writes = createPendingWrites(
    activityStore !== undefined || auditLog !== undefined || plugin?.observe !== undefined,
  );
  const activity = createActivityRecorder({
    store: activityStore,
    retentionDays: options.activityRetentionDays,
    logger,
    background,
    writes,
  });
  const audit = createAuditRecorder({
    store: auditLog,
    seal: createAuditSeal(options.secret),
    retentionDays: options.auditRetentionDays,
    clock,
    logger,
    background,
    writes,
    onAppended,
  });
  const pluginFailed = (error: unknown) =>
    logger.error(
      { event: "oauth_provider.observe_failed", err: String(error) },
      "the OAuth provider failed on an event",
    );
  const observe = (event: SecurityEvent) => {
    activity.observe(event);
    audit.observe(event);
    if (plugin?.observe === undefined) return;
    try {
      const write = plugin.observe(event);
      if (write !== undefined) writes.track(write.catch(pluginFailed));
    } catch (error) {
      pluginFailed(error);
    }
  };
  return {
    activity,
    audit,
    events: createSecurityEvents({ onEvent: options.onEvent, logger, clock, observe }),
  };
}
