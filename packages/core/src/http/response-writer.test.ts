import { describe, expect, it } from "vitest";
import { isEncryptedSocket, type ResponseWriter, writeResponse } from "./response-writer.js";
import type { HttpResponse } from "./types.js";

/** A writer that records its calls, in order. */
const recorder: ResponseWriter<string[], string> = {
  status: (calls, status) => void calls.push(`status ${status}`),
  header: (calls, name, value) => void calls.push(`${name}: ${JSON.stringify(value)}`),
  end: (calls, body) => {
    calls.push(`end ${JSON.stringify(body)}`);
    return "ended";
  },
};

describe("writeResponse", () => {
  it("writeResponse - status, headers in order, the cookies as one list, then the body", () => {
    const calls: string[] = [];
    const response: HttpResponse = {
      status: 200,
      headers: { "cache-control": "no-store", "content-length": "2" },
      cookies: ["a=1", "b=2"],
      body: "{}",
    };
    expect(writeResponse(calls, response, recorder)).toBe("ended");
    expect(calls).toEqual([
      "status 200",
      'cache-control: "no-store"',
      'content-length: "2"',
      'set-cookie: ["a=1","b=2"]',
      'end "{}"',
    ]);
  });

  it("writeResponse - no Set-Cookie without cookies, and no body for a null one", () => {
    const calls: string[] = [];
    writeResponse(
      calls,
      { status: 304, headers: { "auth-error-code": "X" }, cookies: [], body: null },
      recorder,
    );
    expect(calls).toEqual(["status 304", 'auth-error-code: "X"', "end undefined"]);
  });
});

describe("isEncryptedSocket", () => {
  it("isEncryptedSocket - true only for a socket whose encrypted flag is true", () => {
    expect(isEncryptedSocket({ encrypted: true })).toBe(true);
    expect(isEncryptedSocket({ encrypted: 1 })).toBe(false);
    expect(isEncryptedSocket({})).toBe(false);
  });
});
