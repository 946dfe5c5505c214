// A front-end's install of the client: `npm install` of the packed `@portcullis/client` alone
// (its peer `@portcullis/core` is optional, and a browser app does not install it) with TypeScript,
// then `tsc` on a file that calls the client, strict and with `skipLibCheck: false` (the client's
// declarations are checked too). The answers must be typed, not `any`: the file asserts it with a
// type that fails to compile for `any`, and with `@ts-expect-error` lines that compile only when
// the types are precise. Needs the client built (`pnpm --filter @portcullis/client build`; `pnpm
// test` builds first) and the npm registry.
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packPackages, plainEnv, run } from "./pack.js";

const MINUTES = 60_000;

/** What a front-end's tsconfig says: strict, the DOM, and every declaration checked. */
const TSCONFIG = {
  compilerOptions: {
    strict: true,
    skipLibCheck: false,
    noEmit: true,
    target: "es2022",
    module: "esnext",
    moduleResolution: "bundler",
    lib: ["es2022", "dom"],
    types: [],
  },
  files: ["app.ts"],
};

/** A page's calls of the client; it compiles only when each answer has its precise type. */
const APP = `import { createAuthClient, isPortcullisError, type LoginResponse, type User } from "@portcullis/client";

/** true when T is any. */
type IsAny<T> = 0 extends 1 & T ? true : false;
/** Compiles only for false. */
type NotAny<T extends false> = T;

const client = createAuthClient({ baseUrl: "/api/auth" });

export async function page(): Promise<string> {
  const me = await client.me();
  type MeNotAny = NotAny<IsAny<typeof me>>;
  type EmailNotAny = NotAny<IsAny<typeof me.email>>;
  const user: User = me;
  // @ts-expect-error: a user has no such property (were the answer any, this would compile)
  void me.notAProperty;
  // @ts-expect-error: an address is a string, not a number
  const wrong: number = me.email;

  const answer: LoginResponse = await client.login({ email: "ada@example.com", password: "secret" });
  type LoginNotAny = NotAny<IsAny<typeof answer>>;
  if (answer.twoFactorRequired) {
    const done = await client.twoFactor(answer).submit("123456");
    type DoneNotAny = NotAny<IsAny<typeof done.user>>;
    return done.user.email;
  }
  // @ts-expect-error: a password is required to sign in
  void client.login({ email: "ada@example.com" });

  const { sessions } = await client.sessions.list();
  type SessionNotAny = NotAny<IsAny<(typeof sessions)[number]>>;
  const current: boolean | undefined = sessions[0]?.current;
  const page = await client.activity({ limit: 5 });
  type ActivityNotAny = NotAny<IsAny<typeof page.items>>;

  const { cooldown } = await client.requestEmailSignIn("ada@example.com");
  const seconds: number = cooldown;
  const emailed = await client.signInWithEmail({ email: "ada@example.com", code: "123456" }, { rememberMe: true });
  type EmailedNotAny = NotAny<IsAny<typeof emailed>>;
  // @ts-expect-error: a token or an address with its code
  void client.signInWithEmail({ code: "123456" });

  const orders: Response = await client.fetch("/api/orders", { method: "POST", body: "{}", background: true });
  client.touch();

  try {
    await client.logout();
  } catch (error) {
    if (isPortcullisError(error, "LOGIN_THROTTLED")) return error.code;
    // @ts-expect-error: not one of the error codes
    if (isPortcullisError(error, "NOT_A_CODE")) return "never";
  }
  void [user, wrong, current, seconds, orders];
  return answer.user.email;
}
`;

let work: string;
let dir: string;
let tarball: string;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "portcullis-client-types-"));
  await mkdir(join(work, "tarballs"));
  tarball = (await packPackages(["client"], join(work, "tarballs"))).client ?? "";
  dir = join(work, "front-end");
  await mkdir(dir);
  await writeFile(
    join(dir, "package.json"),
    JSON.stringify({ name: "front-end", private: true, type: "module" }),
  );
  await writeFile(join(dir, "tsconfig.json"), JSON.stringify(TSCONFIG, null, 2));
  await writeFile(join(dir, "app.ts"), APP);
}, 5 * MINUTES);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

describe("@portcullis/client installed alone", () => {
  it(
    "npm install - the client's tarball and TypeScript, without @portcullis/core",
    async () => {
      await run(
        "npm",
        ["install", "--no-audit", "--no-fund", "--loglevel=error", tarball, "typescript@5.9.3"],
        {
          cwd: dir,
          maxBuffer: 64 * 1024 * 1024,
          env: plainEnv(),
        },
      );
      expect(await readdir(join(dir, "node_modules", "@portcullis"))).toEqual(["client"]);
      expect(existsSync(join(dir, "node_modules", "zod"))).toBe(false);
    },
    5 * MINUTES,
  );

  it(
    "tsc - strict with skipLibCheck false: the calls type-check and no answer is any",
    async () => {
      const tsc = await run(
        process.execPath,
        [join(dir, "node_modules", "typescript", "bin", "tsc"), "-p", "."],
        {
          cwd: dir,
        },
      ).then(
        ({ stdout, stderr }) => `${stdout}${stderr}`,
        (error: { stdout?: string; stderr?: string; message?: string }) =>
          `${error.stdout ?? ""}${error.stderr ?? ""}` || String(error.message),
      );
      expect(tsc).toBe("");
    },
    2 * MINUTES,
  );

  it(
    "tsc - the same file with the client's answers made any fails (the checks can fail)",
    async () => {
      const declarations = join(dir, "any-client.d.ts");
      await writeFile(
        declarations,
        'declare module "@portcullis/client" {\n  export const createAuthClient: any;\n  export const isPortcullisError: any;\n  export type LoginResponse = any;\n  export type User = any;\n}\n',
      );
      await writeFile(
        join(dir, "tsconfig.any.json"),
        JSON.stringify({
          ...TSCONFIG,
          compilerOptions: {
            ...TSCONFIG.compilerOptions,
            paths: { "@portcullis/client": ["./any-client.d.ts"] },
          },
          files: ["app.ts"],
        }),
      );
      const tsc = await run(
        process.execPath,
        [join(dir, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.any.json"],
        {
          cwd: dir,
        },
      ).then(
        () => "",
        (error: { stdout?: string }) => error.stdout ?? "",
      );
      expect(tsc).toContain("error TS2344");
      expect(tsc).toContain("error TS2578");
    },
    2 * MINUTES,
  );
});
