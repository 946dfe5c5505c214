import type { Auth } from "@portcullis/core";

/**
 * `auth` behind a proxy that counts how many HTTP handlers were built for it: a build reads
 * `auth.translator` once and a request never does, so the reads count the builds. For adapter
 * tests that check every part of an adapter shares the one handler of `httpHandlerFor`.
 */
export function countHandlerBuilds(auth: Auth): { auth: Auth; builds(): number } {
  let reads = 0;
  const counted = new Proxy(auth, {
    get: (target, key, receiver) => {
      if (key === "translator") reads += 1;
      return Reflect.get(target, key, receiver);
    },
  });
  return { auth: counted, builds: () => reads };
}
