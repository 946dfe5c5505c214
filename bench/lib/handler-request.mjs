// A request for the core's HTTP handler (`handler.handle`), as the in-process benchmarks send it:
// a browser's user agent, host localhost:3000, a loopback client, a JSON body when given.
export const HANDLER_HEADERS = {
  "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0",
  host: "localhost:3000",
};

/** `method` on `/api/auth<path>`, with `body` as JSON and `token` as a bearer token when given. */
export function handlerRequest(method, path, { body, token } = {}) {
  const headers = { ...HANDLER_HEADERS };
  if (token) headers.authorization = `Bearer ${token}`;
  let text;
  if (body !== undefined) {
    text = JSON.stringify(body);
    headers["content-type"] = "application/json";
    headers["content-length"] = String(Buffer.byteLength(text));
  }
  return { method, url: `/api/auth${path}`, headers, body: text, remoteAddress: "127.0.0.1" };
}

/**
 * The core's HTTP handler in process, as the in-process benchmarks run it: `createAuth` with their
 * common options (no email sent, a silent logger, the origin localhost:3000, bearer tokens, no
 * login alerts) and `options` over them (`email` merged). Answers the auth, its handler and
 * `send(req, status)`, which resolves to the parsed body and throws when the answer's status is not
 * `status` (any status passes when it is undefined).
 */
export function inProcessAuth(core, options) {
  const auth = core.createAuth({
    mailer: { send: async () => {} },
    logger: core.silentLogger,
    appOrigin: "http://localhost:3000",
    allowHeaderAuthentication: true,
    ...options,
    email: { loginAlerts: false, ...options.email },
  });
  const handler = core.httpHandlerFor(auth);
  const send = async (req, status) => {
    const response = await handler.handle(req);
    if (status !== undefined && response?.status !== status)
      throw new Error(`${req.method} ${req.url}: ${response?.status} ${response?.body}`);
    return response?.body ? JSON.parse(response.body) : null;
  };
  return { auth, handler, send };
}
