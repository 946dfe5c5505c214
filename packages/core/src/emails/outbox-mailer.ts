import type { EmailMessage, Mailer } from "../ports/mailer.js";

/** One captured email with its id and the time it was sent (ms since the epoch). */
export interface OutboxEntry extends EmailMessage {
  id: string;
  sentAt: number;
}

/**
 * A development `Mailer` that keeps the last `limit` emails in memory instead of sending them:
 * the examples show them at `/dev/outbox`, and tests read them. Never use it in production.
 */
export interface OutboxMailer extends Mailer {
  /** Newest first. */
  list(): OutboxEntry[];
  get(id: string): OutboxEntry | undefined;
  clear(): void;
}

export function createOutboxMailer(options: { limit?: number; now?: () => number } = {}): OutboxMailer {
  const limit = options.limit ?? 200;
  const now = options.now ?? Date.now;
  let entries: OutboxEntry[] = [];
  let counter = 0;
  return {
    async send(message) {
      counter += 1;
      entries.unshift({ ...message, id: String(counter), sentAt: now() });
      if (entries.length > limit) entries.length = limit;
    },
    list: () => entries.map((entry) => ({ ...entry })),
    get: (id) => {
      const entry = entries.find((candidate) => candidate.id === id);
      return entry ? { ...entry } : undefined;
    },
    clear() {
      entries = [];
    },
  };
}
