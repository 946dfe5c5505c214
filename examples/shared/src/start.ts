import type { AddressInfo } from "node:net";
import type { Auth, OutboxMailer } from "@portcullis/core";
import { ConfigError, type ExampleConfig, readConfig } from "./config.js";
import { createExampleAuth } from "./setup.js";

/**
 * How long a server keeps an idle connection open (ms): longer than the clients and proxies in
 * front of it keep theirs (Fastify's default, 72 s). Node's own 5 s races a client that reuses its
 * idle connection at that moment: the request then meets a closed socket (ECONNRESET).
 */
export const KEEP_ALIVE_TIMEOUT_MS = 72_000;

/** A server an example started: where it listens, and how it stops. */
export interface ListeningServer {
  address(): AddressInfo | string | null;
  close(): Promise<void>;
}

/**
 * The `server.ts` of an example: reads the configuration (a `ConfigError` ends the process with
 * its message), builds the auth, lets `listen` start the framework's server, says where it runs
 * (and where the dev outbox is), and closes it on SIGINT and SIGTERM.
 */
export async function startExample(
  framework: string,
  listen: (auth: Auth, outbox: OutboxMailer | undefined, config: ExampleConfig) => Promise<ListeningServer>,
): Promise<void> {
  try {
    const config = readConfig();
    const { auth, outbox } = await createExampleAuth(config);
    const server = await listen(auth, outbox, config);
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : config.port;
    console.log(
      `Portcullis ${framework} example on http://${config.host}:${port} (emails link to ${config.appOrigin})`,
    );
    if (outbox) console.log(`Dev outbox: http://${config.host}:${port}/dev/outbox`);
    if (config.passkeys) console.log(`Passkeys on: open ${config.appOrigin} (RP ID ${config.passkeys.rpId})`);
    if (config.oauthProvider)
      console.log(`OAuth provider on: ${config.appOrigin}/api/auth/.well-known/openid-configuration`);
    const stop = () => server.close().then(() => process.exit(0));
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`Cannot start: ${error.message}`);
    process.exit(1);
  }
}
