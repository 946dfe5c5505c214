import {
  createArgon2Hasher,
  createAuth,
  createOutboxMailer,
  type HttpHandler,
  httpHandlerFor,
} from "@portcullis/core";
import { createMemoryStores } from "@portcullis/store-memory";
import { serveHandlerForTests } from "@portcullis/testing";
import { createSso } from "./create-sso.js";

export const PASSWORD = "correct horse battery staple 42";

/**
 * A host with enterprise sign-in on a server of its own at 127.0.0.1 (memory stores, cheap
 * argon2, organizations on, the admin being `admin@example.test`), an owner of one organization
 * signed in with a step-up, a DNS whose TXT records a test sets (`txt`), and an SSO store whose
 * methods named in `failing` reject.
 */
export async function startSsoHost() {
  const stores = createMemoryStores();
  /** Names of `SsoStore` methods that reject while listed: a store that fails. */
  const failing = new Set<string>();
  const sso = new Proxy(stores.sso, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) =>
        failing.has(String(name))
          ? Promise.reject(new Error(`the SSO store is down (${String(name)})`))
          : value.apply(target, args);
    },
  });
  const txt = new Map<string, string[][]>();
  let handler: HttpHandler | undefined;
  const listening = await serveHandlerForTests(() => handler);
  const origin = listening.baseUrl;
  const resolveTxt = async (name: string) => {
    const records = txt.get(name);
    if (!records) throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: "ENOTFOUND" });
    return records;
  };
  const auth = createAuth({
    secret: "sso-plugin-test-secret-4f0c2a9e7b1d3856ce",
    appOrigin: origin,
    stores,
    mailer: createOutboxMailer(),
    passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
    organizations: { permissions: ["project:read"] },
    admin: { authorize: (_principal, user) => user.email === "admin@example.test" },
    sso: createSso({ store: sso, resolveTxt }),
  });
  handler = httpHandlerFor(auth);
  const signIn = async (email: string) => {
    const user = await auth.host.createUser({}, { email, password: PASSWORD, name: "Owner" });
    const session = await auth.sessions.create({}, { userId: user.id });
    const principal = await auth.authenticate({ token: session.accessToken });
    const stepUp = await auth.stepUp({ principal }, { password: PASSWORD });
    const stepUpToken = stepUp.twoFactorRequired ? "" : stepUp.stepUpToken;
    const cookie = (handler as HttpHandler)
      .sessionCookies(session)
      .map((line) => line.split(";")[0])
      .join("; ");
    return { user, principal, headers: { cookie, origin, "x-step-up-token": stepUpToken } };
  };
  const owner = await signIn("owner@acme.test");
  const { organization } = await auth.organizations.create({ principal: owner.principal }, { name: "Acme" });
  const api = `${origin}/api/auth`;
  /** A JSON request as `who` (the owner by default). */
  const call = (method: string, path: string, body?: unknown, who = owner) =>
    fetch(`${api}${path}`, {
      method,
      redirect: "manual",
      headers: { ...who.headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  return {
    auth,
    stores,
    failing,
    origin,
    api,
    txt,
    owner,
    organization,
    signIn,
    call,
    close: listening.close,
  };
}

export type SsoHost = Awaited<ReturnType<typeof startSsoHost>>;
