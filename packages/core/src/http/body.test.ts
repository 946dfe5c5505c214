import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { code } from "../test-support.js";
import { readJsonBody } from "./body.js";
import type { HttpRequest } from "./types.js";

const request = (
  body: HttpRequest["body"],
  headers: Record<string, string> = { "content-type": "application/json" },
) => ({ method: "POST", url: "/x", headers, body }) satisfies HttpRequest;

describe("readJsonBody", () => {
  it("readJsonBody - parses JSON from a stream, a buffer or a string", async () => {
    expect(
      await readJsonBody(request(Readable.from([Buffer.from('{"a":'), Buffer.from("1}")])), 100),
    ).toEqual({ a: 1 });
    expect(await readJsonBody(request(Buffer.from("[1]")), 100)).toEqual([1]);
    expect(
      await readJsonBody(request('"s"', { "content-type": "Application/JSON; charset=utf-8" }), 100),
    ).toBe("s");
  });

  it("readJsonBody - an empty body is undefined whatever the content type", async () => {
    expect(await readJsonBody(request(undefined, {}), 100)).toBeUndefined();
    expect(
      await readJsonBody(request(Readable.from([]), { "content-type": "text/plain" }), 100),
    ).toBeUndefined();
  });

  it("readJsonBody - 415 without a JSON content type, 400 for malformed JSON", async () => {
    expect(await code(readJsonBody(request("{}", {}), 100))).toBe("UNSUPPORTED_MEDIA_TYPE");
    expect(await code(readJsonBody(request("{}", { "content-type": "text/plain" }), 100))).toBe(
      "UNSUPPORTED_MEDIA_TYPE",
    );
    expect(await code(readJsonBody(request("{}", { "content-type": "application/jsonp" }), 100))).toBe(
      "UNSUPPORTED_MEDIA_TYPE",
    );
    expect(await code(readJsonBody(request("{"), 100))).toBe("VALIDATION_FAILED");
  });

  it("readJsonBody - 413 over the limit, by Content-Length before reading or by counting a stream", async () => {
    const unread = Readable.from(["{}"]);
    expect(
      await code(
        readJsonBody(request(unread, { "content-type": "application/json", "content-length": "101" }), 100),
      ),
    ).toBe("PAYLOAD_TOO_LARGE");
    expect(unread.readableEnded).toBe(false);
    const big = Readable.from(Array.from({ length: 64 }, () => Buffer.alloc(16 * 1024, 32)));
    expect(await code(readJsonBody(request(big), 1024))).toBe("PAYLOAD_TOO_LARGE");
    expect(await code(readJsonBody(request("x".repeat(101)), 100))).toBe("PAYLOAD_TOO_LARGE");
  });

  it("readJsonBody - a Node stream is no longer read past the drain limit, fails on an error or an early close", async () => {
    // Endless: only stopping after 64 x the limit ends the read.
    let pushed = 0;
    const endless = new Readable({
      read() {
        pushed += 1;
        this.push(Buffer.alloc(1024, 32));
      },
    });
    expect(await code(readJsonBody(request(endless), 1024))).toBe("PAYLOAD_TOO_LARGE");
    expect(endless.isPaused()).toBe(true);
    expect(endless.listenerCount("data")).toBe(0);
    // 65 read, plus what the stream buffers ahead (its high-water mark: 16 KiB on Node 20, 64 on 22).
    expect(pushed).toBeLessThanOrEqual(65 + endless.readableHighWaterMark / 1024 + 1);

    const failing = new Readable({ read() {} });
    const failed = readJsonBody(request(failing), 1024);
    failing.push("{");
    failing.destroy(new Error("socket hang up"));
    await expect(failed).rejects.toThrow("socket hang up");

    const cut = new Readable({ read() {} });
    const closed = readJsonBody(request(cut), 1024);
    cut.push("{");
    cut.destroy();
    await expect(closed).rejects.toThrow("ended before it was complete");

    const ended = Readable.from(["{}"]);
    await readJsonBody(request(ended), 100);
    expect(await readJsonBody(request(ended), 100)).toBeUndefined();
    // Every listener the read added is gone once it is over.
    expect(ended.listenerCount("data") + ended.listenerCount("close")).toBe(0);
  });

  it("readJsonBody - a body parsed upstream is used, its content type still checked", async () => {
    expect(await readJsonBody({ ...request(undefined), parsedBody: { a: 1 } }, 100)).toEqual({ a: 1 });
    expect(await code(readJsonBody({ ...request(undefined, {}), parsedBody: { a: 1 } }, 100))).toBe(
      "UNSUPPORTED_MEDIA_TYPE",
    );
  });
});
