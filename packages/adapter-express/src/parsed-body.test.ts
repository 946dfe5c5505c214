import { createMemoryStores } from "@portcullis/store-memory";
import { authWithAccount } from "@portcullis/testing";
import express, { type RequestHandler } from "express";
import { describe, expect, it } from "vitest";
import { createAuthRouter } from "./index.js";
import { listenForTests } from "./test-server.js";

const credentials = { email: "parsed@example.test", password: "correct horse battery staple" };

async function loginBehind(parser: RequestHandler, body: string, contentType: string) {
  const auth = await authWithAccount(
    "parsed-body-secret-I4u4QgbeIjsa-zye0WR3cavDSKUQ4DiYcytrWH4K4do",
    createMemoryStores(),
    credentials,
  );
  const server = await listenForTests(express().use(parser).use(createAuthRouter(auth)));
  try {
    const reply = await fetch(`${server.baseUrl}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": contentType },
      body,
    });
    return { status: reply.status, code: reply.headers.get("auth-error-code") };
  } finally {
    await server.close();
  }
}

describe("createAuthRouter behind a body parser", () => {
  it("express.json() - the parsed body is used", async () => {
    const reply = await loginBehind(express.json(), JSON.stringify(credentials), "application/json");
    expect(reply).toEqual({ status: 200, code: null });
  });

  it("express.raw() - the bytes are parsed by the core", async () => {
    const parser = express.raw({ type: "application/json" });
    const reply = await loginBehind(parser, JSON.stringify(credentials), "application/json");
    expect(reply).toEqual({ status: 200, code: null });
  });

  it("express.urlencoded() - a parsed form is still 415 UNSUPPORTED_MEDIA_TYPE", async () => {
    const form = new URLSearchParams(credentials).toString();
    const reply = await loginBehind(express.urlencoded(), form, "application/x-www-form-urlencoded");
    expect(reply).toEqual({ status: 415, code: "UNSUPPORTED_MEDIA_TYPE" });
  });
});
