import type { Logger } from "../ports/logger.js";

/** Work a request starts but does not wait for (side-effect emails), tracked so it can be awaited. */
export interface BackgroundTasks {
  /** Starts `task` now; a failure is logged under `event` with its cause, never thrown. */
  run(event: string, task: () => Promise<unknown>, fields?: Record<string, unknown>): void;
  /** Resolves once every task started so far, and any they started, has settled. */
  idle(): Promise<void>;
}

export function createBackgroundTasks(logger: Logger): BackgroundTasks {
  const running = new Set<Promise<unknown>>();
  return {
    run(event, task, fields = {}) {
      const done = Promise.resolve()
        .then(task)
        .catch((error: unknown) => {
          const cause = error instanceof Error && error.cause !== undefined ? error.cause : error;
          const code = error instanceof Error && "code" in error ? error.code : undefined;
          logger.error(
            { event, ...fields, ...(code ? { code } : {}), err: String(cause) },
            "background task failed",
          );
        })
        .finally(() => running.delete(done));
      running.add(done);
    },
    async idle() {
      while (running.size > 0) await Promise.allSettled([...running]);
    },
  };
}
