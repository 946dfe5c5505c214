import {
  type Auth,
  type AuthOptions,
  type Clock,
  createArgon2Hasher,
  createAuth,
  createOutboxMailer,
  type HttpHandler,
  httpHandlerFor,
  type SecurityEvent,
} from "@portcullis/core";
import { createMemoryStores } from "@portcullis/store-memory";
import {
  failingWhileListed,
  serveHandlerForTests,
  startTestOidcProvider,
  TEST_ACCOUNT_HEADER,
} from "@portcullis/testing";
import { createSso } from "./create-sso.js";

export const PASSWORD = "correct horse battery staple 42";
const SOCIAL_CLIENT = { clientId: "sso-host", clientSecret: "sso-host-client-secret-0123456789abcdef" };

/** A new password account of `email`, signed in with a step-up: its user, principal and request headers. */
async function signedInWithStepUp(auth: Auth, handler: HttpHandler, email: string) {
  const user = await auth.host.createUser({}, { email, password: PASSWORD, name: "Owner" });
  const session = await auth.sessions.create({}, { userId: user.id });
  const principal = await auth.authenticate({ token: session.accessToken });
  const stepUp = await auth.stepUp({ principal }, { password: PASSWORD });
  const stepUpToken = stepUp.twoFactorRequired ? "" : stepUp.stepUpToken;
  const cookie = handler
    .sessionCookies(session)
    .map((line) => line.split(";")[0])
    .join("; ");
  const origin = auth.options.appOrigin ?? "";
  return { user, principal, headers: { cookie, origin, "x-step-up-token": stepUpToken } };
}

/** A DNS whose TXT records a test sets (`txt`), and its lookup; a name without records is ENOTFOUND. */
function fakeDns() {
  const txt = new Map<string, string[][]>();
  const resolveTxt = async (name: string) => {
    const records = txt.get(name);
    if (!records) throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: "ENOTFOUND" });
    return records;
  };
  return { txt, resolveTxt };
}

/** What a test varies of `startSsoHost`'s host. */
interface SsoHostOptions {
  socialProvider?: boolean;
  ipLimits?: AuthOptions["ipLimits"];
  /** `createSso`'s option: OpenID Connect issuers on http and loopback (the test provider's). */
  allowPrivateNetworks?: boolean;
  /** The clock of the auth and its stores; the system's by default. */
  clock?: Clock;
}

/**
 * A host with enterprise sign-in on a server of its own at 127.0.0.1 (memory stores, cheap
 * argon2, organizations on, the admin being `admin@example.test`), an owner of one organization
 * signed in with a step-up, with `socialProvider` a social identity provider named `oidc`, a DNS
 * whose TXT records a test sets (`txt`), SCIM on the memory store, API keys on, and SSO and
 * SCIM stores whose methods named in `failing` reject; `allowPrivateNetworks` for OpenID Connect
 * connections to the test provider on 127.0.0.1, and on `clock` when given.
 */
export async function startSsoHost({
  socialProvider = false,
  ipLimits,
  allowPrivateNetworks,
  clock,
}: SsoHostOptions = {}) {
  const stores = createMemoryStores(clock ? { clock } : {});
  const failing = new Set<string>();
  const events: SecurityEvent[] = [];
  const sso = failingWhileListed(stores.sso, failing);
  const scim = failingWhileListed(stores.scim, failing);
  const { txt, resolveTxt } = fakeDns();
  let handler: HttpHandler | undefined;
  const listening = await serveHandlerForTests(() => handler);
  const origin = listening.baseUrl;
  // A social identity provider (`oidc`), the real OpenID provider of @portcullis/testing.
  const social = socialProvider
    ? await startTestOidcProvider({
        client: { ...SOCIAL_CLIENT, redirectUris: [`${origin}/api/auth/oauth/oidc/callback`] },
      })
    : undefined;
  const auth = createAuth({
    secret: "sso-plugin-test-secret-4f0c2a9e7b1d3856ce",
    appOrigin: origin,
    stores,
    mailer: createOutboxMailer(),
    passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
    organizations: { permissions: ["project:read"] },
    admin: { authorize: (_principal, user) => user.email === "admin@example.test" },
    sso: createSso({ store: sso, scim, resolveTxt, allowPrivateNetworks }),
    apiKeys: {},
    ...(clock ? { clock } : {}),
    onEvent: (event) => void events.push(event),
    // With limits to test, the client's IP comes from X-Forwarded-For (loopback is never counted).
    ...(ipLimits ? { ipLimits, trustProxy: 1 } : {}),
    identityProviders: social
      ? [{ type: "oidc", issuer: social.issuer, ...SOCIAL_CLIENT, allowInsecureRequests: true }]
      : [],
  });
  handler = httpHandlerFor(auth);
  const signIn = (email: string) => signedInWithStepUp(auth, handler as HttpHandler, email);
  const owner = await signIn("owner@acme.test");
  const { organization } = await auth.organizations.create({ principal: owner.principal }, { name: "Acme" });
  const api = `${origin}/api/auth`;
  /** `POST /sso/start` with `body` as a browser on the app's page, with `headers` added. */
  const start = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${api}/sso/start`, {
      method: "POST",
      headers: { origin, "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
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
    events,
    origin,
    api,
    txt,
    owner,
    organization,
    signIn,
    call,
    start,
    social,
    async close() {
      await social?.close();
      await listening.close();
    },
  };
}

export type SsoHost = Awaited<ReturnType<typeof startSsoHost>>;

/** A browser's cookie jars, one per origin. */
export type Jars = Map<string, Map<string, string>>;

/** Keeps a response's `Set-Cookie` values in `jar` (an empty value deletes the cookie). */
export function keepCookies(jar: Map<string, string>, response: Response): void {
  for (const line of response.headers.getSetCookie()) {
    const [pair = ""] = line.split(";");
    const name = pair.slice(0, pair.indexOf("="));
    const value = pair.slice(pair.indexOf("=") + 1);
    if (value === "") jar.delete(name);
    else jar.set(name, value);
  }
}

/** The `Cookie` header of a jar. */
export const cookieHeader = (jar: ReadonlyMap<string, string> | undefined) =>
  [...(jar ?? [])].map(([name, value]) => `${name}=${value}`).join("; ");

/** `url` fetched as a browser would (its origin's cookies sent, its `Set-Cookie` kept), signing in as `account` at the provider. */
export async function visit(url: string, jars: Jars, account: string): Promise<Response> {
  const origin = new URL(url).origin;
  const jar = jars.get(origin) ?? new Map<string, string>();
  jars.set(origin, jar);
  const response = await fetch(url, {
    redirect: "manual",
    headers: { cookie: cookieHeader(jar), [TEST_ACCOUNT_HEADER]: account },
  });
  keepCookies(jar, response);
  return response;
}

/** `POST /sso/start` with `body` in the browser of `jars` (a new jar on the app, holding the binding cookie): the provider's URL. */
export async function startInBrowser(
  host: SsoHost,
  body: Record<string, unknown>,
  jars: Jars,
): Promise<string> {
  const started = await host.start(body);
  if (started.status !== 200) throw new Error(`/sso/start answered ${started.status}`);
  const jar = new Map<string, string>();
  keepCookies(jar, started);
  jars.set(host.origin, jar);
  return ((await started.json()) as { url: string }).url;
}
