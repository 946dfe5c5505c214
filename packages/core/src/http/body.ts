import { AuthError, ValidationError } from "../errors.js";
import { fieldIssue } from "../validation.js";
import { header } from "./request-checks.js";
import type { HttpRequest } from "./types.js";

/** How much of an over-long chunked body is drained (and discarded) before the stream is cut. */
const DRAIN_FACTOR = 64;

/**
 * Reads and parses a JSON body within `limitBytes`: an empty body is `undefined`; a non-empty
 * one needs `Content-Type: application/json` (415), fits the limit (413) and parses (400).
 */
export async function readJsonBody(request: HttpRequest, limitBytes: number): Promise<unknown> {
  const contentType = header(request, "content-type");
  const isJson = contentType !== undefined && /^application\/json\s*(;|$)/i.test(contentType.trim());

  if (request.parsedBody !== undefined) {
    if (!isJson) throw new AuthError("UNSUPPORTED_MEDIA_TYPE");
    return request.parsedBody;
  }
  const declared = Number(header(request, "content-length") ?? Number.NaN);
  if (declared > limitBytes) throw new AuthError("PAYLOAD_TOO_LARGE");

  const text = await readText(request.body, limitBytes);
  if (text.trim() === "") return undefined;
  if (!isJson) throw new AuthError("UNSUPPORTED_MEDIA_TYPE");
  try {
    return JSON.parse(text);
  } catch {
    throw new ValidationError([fieldIssue("(body)", "json")]);
  }
}

async function readText(body: HttpRequest["body"], limitBytes: number): Promise<string> {
  if (body === undefined) return "";
  if (typeof body === "string" || body instanceof Uint8Array) {
    const bytes = typeof body === "string" ? Buffer.from(body, "utf8") : body;
    if (bytes.byteLength > limitBytes) throw new AuthError("PAYLOAD_TOO_LARGE");
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
  }
  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of body) {
    const buffer = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : Buffer.from(chunk);
    received += buffer.byteLength;
    if (received <= limitBytes) chunks.push(buffer);
    // Keep draining a little past the limit so the client gets its 413 instead of a reset.
    else if (received > limitBytes * DRAIN_FACTOR) break;
  }
  if (received > limitBytes) throw new AuthError("PAYLOAD_TOO_LARGE");
  return Buffer.concat(chunks).toString("utf8");
}
