import {
  type AuthOptions,
  type ChangeStores,
  createArgon2Hasher,
  type StoresTogether,
} from "@portcullis/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AnyKysely } from "./context.js";
import { createSqlStores, type SqlStores } from "./sql-stores.js";
import { postgresSchema, sqliteDb, usePostgres } from "./test-databases.js";
import { mysqlDatabase, useMysql } from "./test-mysql.js";
import { NEW_PASSWORD, OLD_PASSWORD, resetAuth, resetState, resettingUsers } from "./test-reset.js";

// `together` (a multi-step change in one transaction) on each SQL dialect: a rejected change leaves
// nothing behind, and a reset or `setPassword` failing at its last write leaves the old state
// whole: the old password, the sessions from before, a working link. A host that wraps one of the
// stores leaves `together` out, and the change relies on its fail-safe order instead.

const SECRET = "together-test-secret-Qm4vT9zXr2LcW6bN1yKp8HdJ3sAe0FgUoIi5Ek7Twq";
const hasher = createArgon2Hasher({ memoryCostKiB: 1024, timeCost: 1 });
const code = (promise: Promise<unknown>) =>
  promise.then(
    () => "OK",
    (error: { code?: string }) => error.code ?? String(error),
  );

/** `together`, with the token store handed to the work failing at `deleteUserTokens` (the change's last write). */
function failingAtLastWrite(together: StoresTogether): StoresTogether {
  return {
    run: (work) =>
      together.run((stores) =>
        work({
          ...stores,
          singleUseTokens: {
            ...stores.singleUseTokens,
            deleteUserTokens: async () => {
              throw new Error("the database went away");
            },
          },
        }),
      ),
  };
}

/** An auth over `stores` with this file's secret and hasher; emails land in `sent`. */
const authOver = (stores: AuthOptions["stores"]) =>
  resetAuth({ secret: SECRET, stores, passwordHasher: hasher });

function runTogetherChecks(name: string, open: () => Promise<{ db: AnyKysely; close(): Promise<void> }>) {
  describe(`together on ${name}`, () => {
    let db: AnyKysely;
    let close: () => Promise<void>;
    let stores: SqlStores;
    let label = 0;
    beforeAll(async () => {
      ({ db, close } = await open());
      stores = createSqlStores({ db, tablePrefix: `tg${Date.now().toString(36)}_` });
      await stores.migrate();
    }, 60_000);
    afterAll(async () => {
      await close?.();
    });
    const next = () => {
      label += 1;
      return `${name}-${label}`;
    };

    it("together.run - a rejection rolls back every write of the work; a resolved run commits", async () => {
      const { auth, sent } = authOver(stores);
      const [user] = await resettingUsers(auth, sent, 1, next());
      if (!user) throw new Error("no user");
      const record = await stores.users.findByEmail(user.email);
      if (!record) throw new Error("no record");
      const failing = stores.together.run(async (tx: ChangeStores) => {
        await tx.users.update(record.id, { name: "Changed" });
        expect(await tx.sessions.deleteUserSessions(record.id)).toHaveLength(1);
        await tx.singleUseTokens.deleteUserTokens(record.id, "password-reset");
        throw new Error("abandoned");
      });
      await expect(failing).rejects.toThrow("abandoned");
      expect((await stores.users.findById(record.id))?.name).toBe(record.name);
      expect(await stores.sessions.listSessions(record.id)).toHaveLength(1);
      expect(await code(auth.authenticate({ token: user.accessToken }))).toBe("OK");

      await stores.together.run((tx) => tx.users.update(record.id, { name: "Committed" }));
      expect((await stores.users.findById(record.id))?.name).toBe("Committed");
    });

    it("resetPassword - a failure at its last write leaves the old password, the old session and a working link", async () => {
      const { auth, sent } = authOver({ ...stores, together: failingAtLastWrite(stores.together) });
      const [user] = await resettingUsers(auth, sent, 1, next());
      if (!user) throw new Error("no user");
      expect(await code(auth.resetPassword({ token: user.token }, { newPassword: NEW_PASSWORD }))).toBe(
        "DATABASE_FAILURE",
      );
      // Not a session ended, not a password changed: the transaction took nothing of it.
      expect(await code(auth.authenticate({ token: user.accessToken }))).toBe("OK");
      const hash = (await stores.users.findByEmail(user.email))?.passwordHash ?? "";
      expect(await hasher.verify(hash, OLD_PASSWORD)).toBe(true);
      // The same link, on stores that work, completes the reset and ends that session.
      const working = authOver(stores).auth;
      expect(await resetState(working, stores.users, hasher, user)).toBe("old");
    });

    it("resetPassword - with a wrapped store and together left out, the same failure leaves the new password and no session", async () => {
      // The host wraps the token store (here: it fails at the change's last write), so it leaves
      // `together` out: the change runs on the stores one by one, in its fail-safe order.
      const { together: _leftOut, ...unjoined } = stores;
      const { auth, sent } = authOver(unjoined);
      const [user] = await resettingUsers(auth, sent, 1, next());
      if (!user) throw new Error("no user");
      const failing = authOver({
        ...unjoined,
        singleUseTokens: {
          ...stores.singleUseTokens,
          deleteUserTokens: async () => {
            throw new Error("the database went away");
          },
        },
      }).auth;
      expect(await code(failing.resetPassword({ token: user.token }, { newPassword: NEW_PASSWORD }))).toBe(
        "DATABASE_FAILURE",
      );
      expect(await resetState(authOver(stores).auth, stores.users, hasher, user)).toBe("new");
    });

    it("admin.setPassword - a failure at its last write changes nothing: old password, sessions alive", async () => {
      const { auth, sent } = authOver({ ...stores, together: failingAtLastWrite(stores.together) });
      const [user] = await resettingUsers(auth, sent, 1, next());
      const record = await stores.users.findByEmail(user?.email ?? "");
      if (!user || !record) throw new Error("no user");
      expect(await code(auth.host.setPassword({}, { userId: record.id, password: NEW_PASSWORD }))).toBe(
        "DATABASE_FAILURE",
      );
      expect(await code(auth.authenticate({ token: user.accessToken }))).toBe("OK");
      expect((await stores.users.findById(record.id))?.passwordHash).toBe(record.passwordHash);
      // With stores that work it sets the password and ends the session.
      await authOver(stores).auth.host.setPassword({}, { userId: record.id, password: NEW_PASSWORD });
      expect(await code(auth.authenticate({ token: user.accessToken }))).toBe("ACCESS_TOKEN_INVALID");
    });

    it("resetPassword - 10 concurrent resets with 10 links of one user: one new password, no session left", async () => {
      const { auth, sent } = authOver(stores);
      const [user] = await resettingUsers(auth, sent, 1, next());
      if (!user) throw new Error("no user");
      const answers = await Promise.all(
        Array.from({ length: 10 }, () =>
          code(auth.resetPassword({ token: user.token }, { newPassword: NEW_PASSWORD })),
        ),
      );
      expect(answers.filter((answer) => answer === "OK")).toHaveLength(1);
      expect(
        answers
          .filter((answer) => answer !== "OK")
          .every((answer) => answer.startsWith("PASSWORD_RESET_TOKEN")),
      ).toBe(true);
      const record = await stores.users.findByEmail(user.email);
      expect(await hasher.verify(record?.passwordHash ?? "", NEW_PASSWORD)).toBe(true);
      expect(await stores.sessions.listSessions(record?.id ?? "")).toEqual([]);
    });
  });
}

runTogetherChecks("sqlite", async () => {
  const db = sqliteDb();
  return { db, close: () => db.destroy() };
});

runTogetherChecks("postgres", async () => {
  const server = await usePostgres();
  const schema = await postgresSchema(server.url);
  return {
    db: schema.db,
    async close() {
      await schema.drop();
      await server.stop();
    },
  };
});

const mysql = await useMysql();
describe.skipIf(!mysql)("together on MariaDB", () => {
  runTogetherChecks("mysql", async () => {
    if (!mysql) throw new Error("unreachable: skipped without a server");
    const database = await mysqlDatabase(mysql.url);
    return {
      db: database.db,
      async close() {
        await database.drop();
        await mysql.stop();
      },
    };
  });
});
