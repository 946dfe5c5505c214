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
