import { passkey } from "@better-auth/passkey";
import { createSoftwareAuthenticator, type SoftwareAuthenticator } from "@portcullis/testing";
import { betterAuth } from "better-auth";
import { getMigrations } from "better-auth/db/migration";
import { twoFactor } from "better-auth/plugins/two-factor";
import { Kysely, PostgresDialect } from "kysely";
import * as OTPAuth from "otpauth";
import pg from "pg";

/** Test support (not part of the package's exports): a Better Auth database filled through Better Auth's own API. */

export const ORIGIN = "http://localhost:3000";
export const BETTER_AUTH_SECRET = "the old app's Better Auth secret, 7Qm2Xv9Lp4Rt8Kw3";

/** The users the fixture makes, and how each was made. */
export const PEOPLE = {
  /** Email and password, TOTP on with its backup codes. */
  ada: { email: "ada@example.test", name: "Ada", password: "ada's old Better Auth password" },
  /** Email and password, a passkey. */
  ben: { email: "ben@example.test", name: "Ben", password: "ben's old Better Auth password" },
  /** Sign-up through Google only: no password. */
  cy: { email: "cy@example.test", name: "Cy", password: null, google: "google-sub-31" },
  /** Email and password, GitHub linked afterwards. */
  dee: { email: "dee@example.test", name: "Dee", password: "dee's old Better Auth password", github: "4242" },
  /** Email and password, nothing else. */
  eli: { email: "eli@example.test", name: "Eli", password: "eli's old Better Auth password" },
} as const;

export type Person = keyof typeof PEOPLE;

/** What the fixture made: the users' ids, Ada's TOTP, Ben's authenticator. */
export interface Seeded {
  ids: Record<Person, string>;
  /** The base32 secret of the `otpauth://` URI Better Auth showed Ada. */
  adaTotpSecret: string;
  /** The backup codes Better Auth showed Ada. */
  adaBackupCodes: string[];
  /** Holds Ben's passkey (registered for RP ID `localhost`). */
  authenticator: SoftwareAuthenticator;
  /** Changes Eli's password through Better Auth, as Eli would during the cut-over. */
  changeEliPassword(newPassword: string): Promise<void>;
  /** Ends the old app's connections. */
  close(): Promise<void>;
}

/**
 * A pool on the test's database that ignores a late connection `error`: the database's forced
 * drop at the end can still reach a connection whose close is under way, and an `error` event of
 * the pool that nobody listens to would end the process.
 */
function quietPool(url: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pool.on("error", () => {});
  return pool;
}

/** Better Auth as an app would configure it: email and password, two-factor, passkeys. */
function oldApp(pool: pg.Pool) {
  return betterAuth({
    database: pool,
    secret: BETTER_AUTH_SECRET,
    baseURL: ORIGIN,
    emailAndPassword: { enabled: true },
    logger: { disabled: true },
    telemetry: { enabled: false },
    plugins: [
      twoFactor({ issuer: "Old App" }),
      passkey({ rpID: "localhost", rpName: "Old App", origin: ORIGIN }),
    ],
  });
}

type OldApp = ReturnType<typeof oldApp>;

/** The `cookie` header a browser would send after these `set-cookie`s (and the ones it already had). */
function cookiesAfter(headers: Headers, before = ""): Headers {
  const jar = new Map(
    before
      .split("; ")
      .filter(Boolean)
      .map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)] as const),
  );
  for (const line of headers.getSetCookie()) {
    const pair = line.split(";")[0] ?? "";
    jar.set(pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1));
  }
  const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join("; ");
  return new Headers({ cookie, origin: ORIGIN });
}

async function signUp(app: OldApp, person: Person): Promise<{ id: string; headers: Headers }> {
  const { email, name, password } = PEOPLE[person];
  if (password === null) throw new Error(`${person} signs up through Google`);
  const { headers, response } = await app.api.signUpEmail({
    body: { email, name, password },
    returnHeaders: true,
  });
  return { id: response.user.id, headers: cookiesAfter(headers) };
}

/** TOTP on through the two-factor plugin: enable, then verify with a code of the URI's secret. */
async function enableTotp(app: OldApp, headers: Headers, password: string) {
  const enabled = await app.api.enableTwoFactor({ body: { password, method: "totp" }, headers });
  if (enabled.method !== "totp") throw new Error(`two-factor enabled as ${enabled.method}, not TOTP`);
  const { totpURI, backupCodes } = enabled;
  const totp = OTPAuth.URI.parse(totpURI);
  if (!(totp instanceof OTPAuth.TOTP)) throw new Error(`not a TOTP URI: ${totpURI}`);
  await app.api.verifyTOTP({ body: { code: totp.generate() }, headers });
  return { secret: totp.secret.base32, backupCodes };
}

/** A passkey through the passkey plugin, made by the software authenticator. */
async function registerPasskey(app: OldApp, headers: Headers, authenticator: SoftwareAuthenticator) {
  const options = await app.api.generatePasskeyRegistrationOptions({ headers, returnHeaders: true });
  const withChallenge = cookiesAfter(options.headers, headers.get("cookie") ?? "");
  const response = authenticator.register(options.response as never);
  await app.api.verifyPasskeyRegistration({
    body: { response, name: "Ben's laptop" },
    headers: withChallenge,
  });
}

/**
 * Better Auth's schema in the PostgreSQL database at `url`, made by its own migrations, and the
 * people above made through its own API: sign-ups, a Google sign-up and a GitHub link through its
 * internal adapter (as its OAuth callback does), TOTP through the two-factor plugin, a passkey
 * through the passkey plugin.
 */
export async function seedBetterAuth(url: string): Promise<Seeded> {
  const pool = quietPool(url);
  try {
    const app = oldApp(pool);
    const { runMigrations } = await getMigrations(app.options);
    await runMigrations();
    const context = await app.$context;
    const ada = await signUp(app, "ada");
    const ben = await signUp(app, "ben");
    const { user: cy } = await context.internalAdapter.createOAuthUser(
      { email: PEOPLE.cy.email, name: PEOPLE.cy.name, emailVerified: true },
      { providerId: "google", accountId: PEOPLE.cy.google },
    );
    const dee = await signUp(app, "dee");
    await context.internalAdapter.linkAccount({
      userId: dee.id,
      providerId: "github",
      accountId: PEOPLE.dee.github,
    });
    const eli = await signUp(app, "eli");
    const totp = await enableTotp(app, ada.headers, PEOPLE.ada.password);
    const authenticator = createSoftwareAuthenticator({ origin: ORIGIN });
    await registerPasskey(app, ben.headers, authenticator);
    return {
      ids: { ada: ada.id, ben: ben.id, cy: cy.id, dee: dee.id, eli: eli.id },
      adaTotpSecret: totp.secret,
      adaBackupCodes: totp.backupCodes,
      authenticator,
      async changeEliPassword(newPassword) {
        const body = { currentPassword: PEOPLE.eli.password, newPassword };
        await app.api.changePassword({ body, headers: eli.headers });
      },
      close: () => pool.end(),
    };
  } catch (error) {
    await pool.end();
    throw error;
  }
}

/** A Kysely on the database at `url` that counts the queries it runs on each table (`user`, `account`, …). */
export function countingKysely(url: string) {
  const queries = new Map<string, number>();
  const pool = quietPool(url);
  const db = new Kysely<Record<string, Record<string, unknown>>>({
    dialect: new PostgresDialect({ pool }),
    log: (event) => {
      const table = /from "(\w+)"/.exec(event.query.sql)?.[1];
      if (table) queries.set(table, (queries.get(table) ?? 0) + 1);
    },
  });
  return { db, queries };
}
