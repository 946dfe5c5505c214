import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { fromNodeRequest, hasMalformedPath, nodeRequestBody } from "./node.js";

const socket = { remoteAddress: "203.0.113.7" };
const nodeRequest = (fields: object = {}) =>
  Object.assign(
    Readable.from([]),
    { method: "POST", url: "/api/auth/login?x=1", headers: {}, socket },
    fields,
  );

describe("node helpers", () => {
  it("hasMalformedPath - true only for a path whose percent-encoding does not decode; the query is not judged", () => {
    for (const url of ["/api/auth/%E0%A4%A", "/api/auth/me%", "/api/auth/login%ZZ?locale=de", "/%C0%AF"])
      expect(hasMalformedPath(url), url).toBe(true);
    for (const url of ["/api/auth/me", "/api/auth/%6De", "/api/auth/%E0%A4%A4", "/api/auth/me?q=%ZZ", "/a#%"])
      expect(hasMalformedPath(url), url).toBe(false);
  });

  it("fromNodeRequest - method, URL, headers and socket of the request; extra fields replace them", () => {
    const req = nodeRequest({ headers: { host: "app.example.test" } });
    expect(fromNodeRequest(req)).toEqual({
      method: "POST",
      url: "/api/auth/login?x=1",
      headers: { host: "app.example.test" },
      remoteAddress: "203.0.113.7",
      encrypted: false,
    });
    const tls = nodeRequest({ socket: { remoteAddress: "::1", encrypted: true } });
    expect(fromNodeRequest(tls, { url: "/mounted/api/auth/login" })).toMatchObject({
      url: "/mounted/api/auth/login",
      encrypted: true,
    });
  });

  it("nodeRequestBody - the stream; a body parser's text or bytes; what it parsed; nothing once consumed", () => {
    const req = nodeRequest();
    expect(nodeRequestBody(req)).toEqual({ body: req });
    expect(nodeRequestBody(nodeRequest({ body: "{}" }))).toEqual({ body: "{}" });
    const bytes = new Uint8Array([123, 125]);
    expect(nodeRequestBody(nodeRequest({ body: bytes }))).toEqual({ body: bytes });
    expect(nodeRequestBody(nodeRequest({ body: { email: "a" } }))).toEqual({ parsedBody: { email: "a" } });
    const consumed = nodeRequest();
    consumed.resume();
    return new Promise<void>((resolve) =>
      consumed.on("end", () => {
        expect(nodeRequestBody(consumed)).toEqual({ parsedBody: undefined });
        resolve();
      }),
    );
  });
});
