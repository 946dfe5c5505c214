import { randomBytes } from "node:crypto";
import {
  type Auth,
  type AuthOptions,
  type Clock,
  createAuth,
  createOutboxMailer,
  type OutboxMailer,
  type SecurityEvent,
  silentLogger,
  systemClock,
} from "@portcullis/core";
import { expect, onTestFinished } from "vitest";
import { freePort } from "./free-port.js";
import { startTestOidcProvider, TEST_ACCOUNT_HEADER, type TestOidcProvider } from "./oidc-test-provider.js";

export interface IdentityProviderSuiteOptions {
  /** Shown in the describe block, e.g. "express". */
  name: string;
  /** Fresh stores for one test's app, with an `identities` store (called once per test). */
  createStores: () => AuthOptions["stores"] & { close?: () => void };
  /** Serves `auth`'s routes with the adapter under test on `127.0.0.1:port`. */
  listen(auth: Auth, port: number): Promise<{ close(): Promise<void> }>;
}

export const PREFIX = "/api/auth";
export const PASSWORD = "correct horse battery staple";
export const CLIENT = { clientId: "portcullis-app", clientSecret: randomBytes(24).toString("base64url") };
export const OTHER = { clientId: "other-app", clientSecret: randomBytes(24).toString("base64url") };
export const OTHER_REDIRECT = "http://127.0.0.1:9/other/callback";
/** ID tokens live a minute: the expiry test moves the app's clock past it (and openid-client's 30 s tolerance). */
export const ID_TOKEN_TTL_SECONDS = 60;

/** One redirect-free reply as the test browser saw it. */
export interface BrowserReply {
  status: number;
  location: string | null;
  setCookies: string[];
  body: string;
}

/**
 * A browser without a browser: one cookie jar per origin (paths and SameSite are not modelled:
 * the core's attributes are asserted on the Set-Cookie headers instead), redirects by hand, and
 * the test account it signs in as at the provider.
 */
export class TestBrowser {
  private readonly jars = new Map<string, Map<string, string>>();
  constructor(private readonly account: string) {}

  cookies(origin: string): Map<string, string> {
    let jar = this.jars.get(origin);
    if (!jar) {
      jar = new Map();
      this.jars.set(origin, jar);
    }
    return jar;
  }

  async request(url: string, init: { method?: string; headers?: Record<string, string> } = {}) {
    const jar = this.cookies(new URL(url).origin);
    const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join("; ");
    const response = await fetch(url, {
      method: init.method ?? "GET",
      redirect: "manual",
      headers: {
        ...(cookie ? { cookie } : {}),
        [TEST_ACCOUNT_HEADER]: this.account,
        ...init.headers,
      },
    });
    const setCookies = response.headers.getSetCookie();
    for (const line of setCookies) {
      const [pair = ""] = line.split(";");
      const name = pair.slice(0, pair.indexOf("="));
      const value = pair.slice(pair.indexOf("=") + 1);
      if (/;\s*max-age=0/i.test(line) || /;\s*expires=Thu, 01 Jan 1970/i.test(line)) jar.delete(name);
      else jar.set(name, value);
    }
    const location = response.headers.get("location");
    const reply: BrowserReply = {
      status: response.status,
      location: location === null ? null : new URL(location, url).href,
      setCookies,
      body: await response.text(),
    };
    return reply;
  }

  /** Follows redirects from `url` until one points at `until` (returned, not requested). */
  async followUntil(url: string, until: (next: string) => boolean): Promise<string> {
    let next = url;
    for (let hop = 0; hop < 20; hop++) {
      const reply = await this.request(next);
      if (!reply.location)
        throw new Error(`${next} answered ${reply.status} without a redirect: ${reply.body}`);
      if (until(reply.location)) return reply.location;
      next = reply.location;
    }
    throw new Error("too many redirects");
  }
}

type TokenBody = Record<string, unknown>;

/** One test's app: the provider, the auth served by the adapter under test, what it sent and logged. */
export interface IdpApp {
  provider: TestOidcProvider;
  auth: Auth;
  stores: ReturnType<IdentityProviderSuiteOptions["createStores"]>;
  /** `http://127.0.0.1:<port>`, the app's origin. */
  appOrigin: string;
  outbox: OutboxMailer;
  events: SecurityEvent[];
  /** ID tokens the provider issued to the app, newest last. */
  idTokens: string[];
  /** From now on, rewrites the provider's token responses before the app sees them (`null`: as sent). */
  tamper(rewrite: ((body: TokenBody) => TokenBody) | null): void;
  /** Sign-ins so far at the provider ("User <n>"). */
  accounts: number;
}

/** Builds the running test's app (closed after it), on `clock` (default: the system clock). */
export type IdpBoot = (overrides?: { clock?: Clock }) => Promise<IdpApp>;

/** A `fetch` for the app's calls to the provider that records ID tokens and applies `tamper`. */
function tokenEndpointTap() {
  const idTokens: string[] = [];
  let rewrite: ((body: TokenBody) => TokenBody) | null = null;
  const tapped: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    const url = input instanceof Request ? input.url : String(input);
    if (!new URL(url).pathname.endsWith("/token") || !response.ok) return response;
    const body = (await response.json()) as TokenBody;
    if (typeof body.id_token === "string") idTokens.push(body.id_token);
    return new Response(JSON.stringify(rewrite ? rewrite(body) : body), {
      status: response.status,
      headers: { "content-type": "application/json", "cache-control": "no-store" },
    });
  };
  const tamper = (next: typeof rewrite) => {
    rewrite = next;
  };
  return { fetch: tapped, idTokens, tamper };
}

/**
 * The boot of the suite's tests: a provider of the test's own and an app that trusts it. The app's
 * port is chosen before the provider starts (its redirect URI names it), so another server can
 * take it in between (EADDRINUSE, seen once in CI): the boot then starts over on a new port, at
 * most three times. What a failed try started is closed when the test ends.
 */
export function createIdpBoot(options: IdentityProviderSuiteOptions): IdpBoot {
  const bootOnce = bootOn(options);
  return async (settings = {}) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await bootOnce(settings, await freePort());
      } catch (error) {
        if (attempt >= 3 || (error as NodeJS.ErrnoException).code !== "EADDRINUSE") throw error;
      }
    }
  };
}

/** One try of `createIdpBoot`'s boot, the app on `port`. */
function bootOn(options: IdentityProviderSuiteOptions) {
  return async ({ clock = systemClock }: Parameters<IdpBoot>[0] = {}, port: number): Promise<IdpApp> => {
    const appOrigin = `http://127.0.0.1:${port}`;
    const provider = await startTestOidcProvider({
      client: { ...CLIENT, redirectUris: [`${appOrigin}${PREFIX}/oauth/oidc/callback`] },
      otherClient: { ...OTHER, redirectUris: [OTHER_REDIRECT] },
      idTokenTtlSeconds: ID_TOKEN_TTL_SECONDS,
    });
    onTestFinished(() => provider.close());
    const stores = options.createStores();
    onTestFinished(() => stores.close?.());
    const outbox = createOutboxMailer();
    const events: SecurityEvent[] = [];
    const tap = tokenEndpointTap();
    const auth = createAuth({
      secret: randomBytes(48).toString("base64url"),
      stores,
      mailer: outbox,
      appOrigin,
      clock,
      logger: silentLogger,
      onEvent: (event) => void events.push(event),
      identityProviders: [
        {
          type: "oidc",
          issuer: provider.issuer,
          clientId: CLIENT.clientId,
          clientSecret: CLIENT.clientSecret,
          allowInsecureRequests: true,
          fetch: tap.fetch,
        },
      ],
    });
    await auth.ready();
    const server = await options.listen(auth, port);
    onTestFinished(() => server.close());
    return {
      provider,
      auth,
      stores,
      appOrigin,
      outbox,
      events,
      idTokens: tap.idTokens,
      tamper: tap.tamper,
      accounts: 0,
    };
  };
}

/** The URL of an auth route of `app`. */
export const api = (app: IdpApp, path: string) => `${app.appOrigin}${PREFIX}${path}`;
/** Whether `url` is `app`'s callback of the provider (the hop a test requests itself). */
export const callbackOf = (app: IdpApp) => (url: string) => url.startsWith(api(app, "/oauth/oidc/callback"));
/** The `error` query parameter of a redirect. */
export const errorOf = (location: string | null) => new URL(location ?? "http://x").searchParams.get("error");
/** Whether the Set-Cookie lines sign someone in. */
export const hasSession = (setCookies: string[]) =>
  setCookies.some((line) => /^access_token=[^;]/.test(line) || /^refresh_token=[^;]/.test(line));

/** A fresh account at `app`'s provider, and a browser that signs in as it. */
export function newAccount(app: IdpApp, emailVerified = true, email?: string) {
  const n = ++app.accounts;
  const id = `idp-user-${n}-${randomBytes(4).toString("hex")}`;
  const address = email ?? `${id}@example.test`;
  app.provider.setAccount(id, { email: address, emailVerified, name: `User ${n}` });
  return { id, email: address, browser: new TestBrowser(id) };
}

/** authorize → the provider (login, consent) → the callback URL, not yet requested. */
export async function toCallback(app: IdpApp, browser: TestBrowser, query = ""): Promise<string> {
  const start = await browser.request(api(app, `/oauth/oidc/authorize${query}`));
  expect(start.status).toBe(302);
  return browser.followUntil(start.location ?? "", callbackOf(app));
}

/** A whole sign-in at the provider: the callback's reply. */
export const signIn = async (app: IdpApp, browser: TestBrowser, query = "") =>
  browser.request(await toCallback(app, browser, query));

/** `GET /me` in `browser`. */
export const me = (app: IdpApp, browser: TestBrowser) => browser.request(api(app, "/me"));

/** The signed-in user's id as `/me` answers it in `browser`. */
export const userIdOf = async (app: IdpApp, browser: TestBrowser) =>
  JSON.parse((await me(app, browser)).body).id as string;

/** A password account created through the host API. */
export const passwordAccount = (app: IdpApp, email: string, emailVerified: boolean) =>
  app.auth.host.createUser({}, { email, password: PASSWORD, emailVerified });

/** The bearer and JSON headers of a password login to `email`. */
export async function passwordLogin(app: IdpApp, email: string): Promise<Record<string, string>> {
  const login = await fetch(api(app, "/login"), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  const { accessToken } = (await login.json()) as { accessToken: string };
  return { authorization: `Bearer ${accessToken}`, "content-type": "application/json" };
}

/** A password step-up of the session of `bearer`: its step-up token. */
export async function passwordStepUp(app: IdpApp, bearer: Record<string, string>): Promise<string> {
  const stepUp = await fetch(api(app, "/step-up"), {
    method: "POST",
    headers: bearer,
    body: JSON.stringify({ password: PASSWORD }),
  });
  return ((await stepUp.json()) as { stepUpToken: string }).stepUpToken;
}

/** POST /oauth/oidc/link after a password step-up of the session of `bearer`. */
export async function steppedUpLink(app: IdpApp, bearer: Record<string, string>, returnTo: string) {
  return fetch(api(app, "/oauth/oidc/link"), {
    method: "POST",
    headers: { ...bearer, "x-step-up-token": await passwordStepUp(app, bearer) },
    body: JSON.stringify({ returnTo }),
  });
}

/** Completes a link that `link` (a 200 of POST /oauth/oidc/link) started, in `browser`: the callback's reply. */
export async function finishLink(app: IdpApp, link: Response, browser: TestBrowser): Promise<BrowserReply> {
  const { authorizationUrl } = (await link.json()) as { authorizationUrl: string };
  const state = link.headers.getSetCookie().find((line) => line.startsWith("oauth_state=")) ?? "";
  browser.cookies(app.appOrigin).set("oauth_state", state.slice("oauth_state=".length, state.indexOf(";")));
  return browser.request(await browser.followUntil(authorizationUrl, callbackOf(app)));
}
