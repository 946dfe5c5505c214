import { readFileSync } from "node:fs";
import { type AuthOptionFields, createArgon2Hasher, createAuth } from "@portcullis/core";
import { createMemoryStores } from "@portcullis/store-memory";
import { describe, expect, it } from "vitest";
import { authenticateRequest, type ClientInfo, createFetchHandler, setSessionCookies } from "./index.js";

const credentials = { email: "ada@example.test", password: "correct horse battery staple" };
const BASE = "http://app.example.test";

/** An auth with Ada registered, its Fetch handler called in-process (no server), and her tokens. */
async function setUp(options: Omit<Partial<AuthOptionFields>, "email"> = {}) {
  const auth = createAuth({
    secret: "fetch-handler-secret-Jd2kq8PLmTzXvR4oWn7cYbA1sGhE5uKfQ0iN3yV6tCw",
    stores: createMemoryStores(),
    passwordHasher: createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 }),
    email: { enabled: false },
    ...options,
  });
  await auth.register({}, credentials);
  const handler = createFetchHandler(auth);
  const post = (path: string, body: unknown, client?: ClientInfo, init: RequestInit = {}) =>
    handler(
      new Request(`${BASE}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...init.headers },
        body: JSON.stringify(body),
      }),
      client,
    );
  const get = (path: string, headers: Record<string, string> = {}) =>
    handler(new Request(`${BASE}${path}`, { headers }));
  return { auth, handler, post, get };
}

/** The client IP of the session a login with `client` (and `headers`) started. */
async function ipOfLogin(
  client: ClientInfo | undefined,
  headers: Record<string, string> = {},
  trustProxy = 0,
) {
  const { post, get } = await setUp({ trustProxy });
  const login = await post("/api/auth/login", credentials, client, { headers });
  const { accessToken } = (await login.json()) as { accessToken: string };
  const list = await get("/api/auth/sessions", { authorization: `Bearer ${accessToken}` });
  const { sessions } = (await list.json()) as { sessions: { ip: string | null }[] };
  return sessions[0]?.ip;
}

describe("createFetchHandler", () => {
  it("createFetchHandler - login answers a Response with its cookies; /me by the cookie", async () => {
    const { post, get } = await setUp();
    const login = await post("/api/auth/login", credentials);
    expect(login.status).toBe(200);
    expect(login.headers.get("content-type")).toBe("application/json; charset=utf-8");
    const cookies = login.headers.getSetCookie();
    expect(cookies.map((cookie) => cookie.split("=")[0])).toEqual([
      "access_token",
      "refresh_token",
      "two_factor_authentication_token",
      "device_token",
    ]);
    const jar = cookies.map((cookie) => cookie.split(";")[0]).join("; ");
    const me = await get("/api/auth/me", { cookie: jar });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ email: credentials.email });
  });

  it("createFetchHandler - a path outside basePath is a plain 404; one under it is NOT_FOUND", async () => {
    const { get } = await setUp();
    expect((await get("/elsewhere")).status).toBe(404);
    const inside = await get("/api/auth/no-such-route");
    expect(inside.status).toBe(404);
    expect(inside.headers.get("auth-error-code")).toBe("NOT_FOUND");
  });

  it("createFetchHandler - the client IP comes from the client passed in, in each runtime's shape", async () => {
    expect(await ipOfLogin(undefined)).toBeNull();
    expect(await ipOfLogin({ remoteAddress: "203.0.113.7" })).toBe("203.0.113.7");
    expect(await ipOfLogin({ remoteAddr: { hostname: "203.0.113.8" } })).toBe("203.0.113.8");
    expect(await ipOfLogin({ requestIP: () => ({ address: "::ffff:203.0.113.9" }) })).toBe("203.0.113.9");
  });

  it("createFetchHandler - X-Forwarded-For counts only under trustProxy", async () => {
    const forwarded = { "x-forwarded-for": "198.51.100.4" };
    expect(await ipOfLogin({ remoteAddress: "10.0.0.2" }, forwarded)).toBe("10.0.0.2");
    expect(await ipOfLogin({ remoteAddress: "10.0.0.2" }, forwarded, 1)).toBe("198.51.100.4");
  });

  it("createFetchHandler - a streamed body over bodyLimitBytes is 413 PAYLOAD_TOO_LARGE; a form is 415", async () => {
    const { handler } = await setUp({ bodyLimitBytes: 1024 });
    const chunk = new TextEncoder().encode(`"${"x".repeat(700)}"`);
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(chunk);
      },
    });
    const big = await handler(
      new Request(`${BASE}/api/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
        duplex: "half",
      } as RequestInit),
    );
    expect(big.status).toBe(413);
    expect(big.headers.get("auth-error-code")).toBe("PAYLOAD_TOO_LARGE");
    const form = await handler(
      new Request(`${BASE}/api/auth/login`, { method: "POST", body: new URLSearchParams(credentials) }),
    );
    expect(form.status).toBe(415);
  });

  it("createFetchHandler - the request's own origin takes the URL's scheme: https only when the URL is", async () => {
    const { handler } = await setUp();
    const login = (url: string) =>
      handler(
        new Request(`${url}/api/auth/login`, {
          method: "POST",
          headers: { "content-type": "application/json", origin: "https://app.example.test" },
          body: JSON.stringify(credentials),
        }),
      );
    expect((await login("https://app.example.test")).status).toBe(200);
    const plain = await login("http://app.example.test");
    expect(plain.status).toBe(403);
    expect(plain.headers.get("auth-error-code")).toBe("CSRF_REJECTED");
  });
});

describe("authenticateRequest", () => {
  it("authenticateRequest - the principal of a bearer token; signed out the 401 Response", async () => {
    const { auth, post } = await setUp();
    const { accessToken, user } = (await (await post("/api/auth/login", credentials)).json()) as {
      accessToken: string;
      user: { id: string };
    };
    const signedIn = await authenticateRequest(
      auth,
      new Request(`${BASE}/notes`, { headers: { authorization: `Bearer ${accessToken}` } }),
    );
    expect(signedIn.principal?.userId).toBe(user.id);
    const signedOut = await authenticateRequest(auth, new Request(`${BASE}/notes`));
    if (!signedOut.response) throw new Error("expected a response");
    expect(signedOut.response.status).toBe(401);
    expect(((await signedOut.response.json()) as { code: string }).code).toBe("AUTHENTICATION_REQUIRED");
  });

  it("setSessionCookies - a host-started session's cookies authenticate", async () => {
    const { auth } = await setUp();
    const user = await auth.host.createUser({}, { email: "sso@example.test", emailVerified: true });
    const started = await auth.sessions.create({}, { userId: user.id });
    const headers = new Headers();
    setSessionCookies(auth, headers, started);
    const jar = headers
      .getSetCookie()
      .map((cookie) => cookie.split(";")[0])
      .join("; ");
    const result = await authenticateRequest(
      auth,
      new Request(`${BASE}/notes`, { headers: { cookie: jar } }),
    );
    expect(result.principal).toMatchObject({ userId: user.id, sessionId: started.sessionId });
  });

  it("setSessionCookies - rememberMe: false gives browser-session cookies, as a login without rememberMe", async () => {
    const { auth } = await setUp();
    const cookiesOf = (rememberMe: boolean) => {
      const headers = new Headers();
      setSessionCookies(auth, headers, { accessToken: "a", refreshToken: "r", rememberMe });
      return headers.getSetCookie().filter((cookie) => !cookie.includes("two_factor"));
    };
    expect(cookiesOf(true)).toHaveLength(2);
    for (const cookie of cookiesOf(true)) expect(cookie).toMatch(/Max-Age=\d+/);
    expect(cookiesOf(false)).toHaveLength(2);
    for (const cookie of cookiesOf(false)) expect(cookie).not.toMatch(/Max-Age/);
  });
});

describe("adapter source", () => {
  it("adapter source - imports only @portcullis/core and uses no Node-only API", () => {
    const source = readFileSync(new URL("./index.ts", import.meta.url), "utf8");
    const imports = [...source.matchAll(/from "([^"]+)"/g)].map((match) => match[1]);
    expect(imports).toEqual(["@portcullis/core"]);
    expect(source).not.toMatch(/\b(Buffer|process|require|__dirname|setImmediate)\b|node:/);
  });
});
