import {
  type Auth,
  createAuth,
  createOutboxMailer,
  createSmtpMailer,
  type Mailer,
  type OutboxMailer,
} from "@portcullis/core";
import { createMemoryStores, type MemoryStores } from "@portcullis/store-memory";
import type { ExampleConfig } from "./config.js";
import { readSeedFile, seedUsers } from "./seed.js";

export interface ExampleAuth {
  auth: Auth;
  stores: MemoryStores;
  /** The dev outbox, when it is on (no SMTP_URL, not production). */
  outbox: OutboxMailer | undefined;
  close(): void;
}

/** createAuth as both example servers configure it, seeded from SEED_FILE. */
export async function createExampleAuth(
  config: ExampleConfig,
  extra: { passwordHasher?: Parameters<typeof createAuth>[0]["passwordHasher"] } = {},
): Promise<ExampleAuth> {
  const stores = createMemoryStores();
  const outbox = config.devOutbox ? createOutboxMailer() : undefined;
  const smtp = config.smtpUrl ? createSmtpMailer({ url: config.smtpUrl, from: config.emailFrom }) : undefined;
  const mailer: Mailer | undefined = smtp ?? outbox;
  const auth = createAuth({
    secret: config.secret,
    stores,
    mailer,
    appOrigin: config.appOrigin,
    email: {
      enabled: config.emailEnabled,
      cooldownSeconds: config.emailCooldownSeconds,
      loginAlerts: config.loginAlerts,
    },
    allowHeaderAuthentication: config.allowHeaderAuth,
    preferHeaderAuthentication: config.preferHeaderAuth,
    cookies: { secure: config.cookieSecure },
    ...extra,
  });
  if (config.seedFile) await seedUsers(stores.users, await readSeedFile(config.seedFile));
  return {
    auth,
    stores,
    outbox,
    close() {
      stores.close();
      smtp?.close();
    },
  };
}
