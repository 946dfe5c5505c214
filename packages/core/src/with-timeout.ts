/**
 * `promise`, or a rejection with `message` once `ms` milliseconds pass first. The timer is
 * cleared either way (it never holds the process open). The one timeout race of Portcullis:
 * mail sends, SMTP, and store operations use it.
 */
export function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
    timer.unref?.();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
