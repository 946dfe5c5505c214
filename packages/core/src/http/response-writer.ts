import type { Readable } from "node:stream";
import type { HttpResponse } from "./types.js";

/**
 * How an adapter writes to its framework's response object `Target`: the three calls
 * `writeResponse` makes, defined once per adapter (no object is made per response).
 */
export interface ResponseWriter<Target, Result> {
  /** Sets the status code. */
  status(target: Target, status: number): void;
  /** Sets one header; `set-cookie` comes as the list of its values. */
  header(target: Target, name: string, value: string | string[]): void;
  /** Sends the body (undefined for none; a stream, piped) and ends the response. */
  end(target: Target, body: string | Readable | undefined): Result;
}

/**
 * Writes the core's response through an adapter's `writer`: the status, every header in order,
 * `Set-Cookie` only when there are cookies, then the body (none for a 304 or a redirect) or its stream.
 */
export function writeResponse<Target, Result>(
  target: Target,
  response: HttpResponse,
  writer: ResponseWriter<Target, Result>,
): Result {
  writer.status(target, response.status);
  const { headers } = response;
  for (const name in headers) writer.header(target, name, headers[name] as string);
  if (response.cookies.length > 0) writer.header(target, "set-cookie", response.cookies);
  return writer.end(target, response.stream ?? response.body ?? undefined);
}

/**
 * Whether a Node socket is TLS (`TLSSocket.encrypted`): the request's own scheme is https. The
 * core reads forwarded schemes itself, under its `trustProxy` option.
 */
export const isEncryptedSocket = (socket: object): boolean =>
  "encrypted" in socket && socket.encrypted === true;
