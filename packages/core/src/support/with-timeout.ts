/**
 * `promise`, or a rejection with `message` once `ms` milliseconds pass first. The timer is
 * cleared either way (it never holds the process open). The one timeout race of Portcullis:
 * mail sends, SMTP, and store operations use it.
 *
 * One promise and one timer per call, instead of `Promise.race` with `finally`: store-redis wraps
 * every command in it, so it sits on each request of a host on Redis.
 */
export function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(message)), ms);
    timer.unref?.();
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
