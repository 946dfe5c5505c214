import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { createAuthRouter } from "@portcullis/adapter-express";
import type { Auth } from "@portcullis/core";
import type { Express } from "express";
import { afterEach } from "vitest";

// Test support (not built into the package): a real server for the client's tests.

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/**
 * Mounts `auth`'s routes on `app` (after what the test put there), listens on 127.0.0.1 and stops
 * after the test (the auth's background work first). Resolves to the routes' base URL.
 */
export async function listenWithAuth(app: Express, auth: Auth): Promise<string> {
  app.use(createAuthRouter(auth));
  const server = app.listen(0, "127.0.0.1");
  await once(server, "listening");
  closers.push(async () => {
    await auth.idle();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/auth`;
}

/** A fetch with a cookie jar, as a browser keeps the server's cookies. */
export function cookieJarFetch(): typeof fetch {
  const jar = new Map<string, string>();
  return async (input, init = {}) => {
    const headers = new Headers(init.headers);
    if (jar.size > 0) headers.set("cookie", [...jar].map(([name, value]) => `${name}=${value}`).join("; "));
    const response = await fetch(input, { ...init, headers });
    for (const line of response.headers.getSetCookie()) {
      const [pair = "", ...attributes] = line.split(";");
      const name = pair.slice(0, pair.indexOf("="));
      const value = pair.slice(pair.indexOf("=") + 1);
      if (attributes.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === "") jar.delete(name);
      else jar.set(name, value);
    }
    return response;
  };
}
