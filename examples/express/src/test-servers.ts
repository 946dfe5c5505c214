import type { Auth } from "@portcullis/core";
import type { ExampleAuth } from "example-shared";
import { addHostRoutes, listenForTests } from "../../../packages/adapter-express/src/test-server.js";
import { createApp } from "./app.js";

/** Test support: the example app listening on a free port of 127.0.0.1. */
export const startExample = ({ auth, outbox }: ExampleAuth) => listenForTests(createApp(auth, outbox));

/** The example app plus the two host routes the adapter suite calls. */
export const startWithHostRoutes = (auth: Auth) =>
  listenForTests(addHostRoutes(createApp(auth, undefined), auth));
