import { createFetchHandler } from "@portcullis/adapter-fetch";
import { createAuth } from "@portcullis/core";
import { createMemoryStores } from "@portcullis/store-memory";

// The Fetch handler handed as it is to the runtime's own server, `Bun.serve` or `Deno.serve` (no
// Hono, no node:http): each passes its second argument, from which the handler reads the client
// IP. Started by runtimes.test.ts under Bun and Deno; PORT and AUTH_SECRET from the environment.
interface Runtimes {
  Bun?: { serve(options: { port: number; hostname: string; fetch: unknown }): unknown };
  Deno?: { serve(options: { port: number; hostname: string }, handler: unknown): unknown };
}

const auth = createAuth({
  secret: process.env.AUTH_SECRET ?? "",
  stores: createMemoryStores(),
  email: { enabled: false },
});
const handler = createFetchHandler(auth);
const port = Number(process.env.PORT);
const { Bun, Deno } = globalThis as Runtimes;
if (Bun) Bun.serve({ port, hostname: "127.0.0.1", fetch: handler });
else if (Deno) Deno.serve({ port, hostname: "127.0.0.1" }, handler);
else throw new Error("native-serve runs on Bun or Deno");
console.log(`Native server on http://127.0.0.1:${port}`);
