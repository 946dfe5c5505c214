import { afterAll, describe, expect, it } from "vitest";
import { canStartRedis, OutageExample, registerForLogin } from "./outage-example.js";

// docs/limits.md, "Outages": an outage never counts against a user, a hang included. A redis-server
// of the test's own is frozen (SIGSTOP: it keeps its connections but runs nothing) for 10 s while a
// client retries its login every 250 ms; every answer meanwhile is a fast 500
// EMAIL_COOLDOWN_CACHE_FAILURE. The counts those logins sent reach Redis when it resumes (SIGCONT),
// after their 500: they must change nothing, so the next correct login signs in within 2 s.
// docs/deploying.md ("Outages") quotes the figures.
const FREEZE_MS = 10_000;
const RETRY_MS = 250;
/** The longest a login may take during the freeze: the store's deadline (500 ms) and room for a busy machine. */
const FAILING_MS = 1_000;
/** From the resume to the first 200. */
const RECOVERY_MS = 2_000;
/** How long the test keeps retrying after the resume before it gives up (the figures before the fix). */
const GIVE_UP_MS = 15_000;

describe.skipIf(!canStartRedis)("example: express + redis frozen", () => {
  const running = new OutageExample();
  afterAll(() => running.close());

  it("login - a client retrying every 250 ms through a 10 s Redis freeze gets fast 500s, then signs in within 2 s of the resume", async () => {
    const baseUrl = await running.start({
      AUTH_SECRET: "freeze-secret-Vb7Qm2XkR9tLw4NzJc8Hf1Ys6Pd3Ga0Ue5Ko7Ti2WqE",
    });
    const server = running.redis as NonNullable<typeof running.redis>;
    const login = await registerForLogin(baseUrl, "frozen@example.test");
    expect((await login()).status).toBe(200);

    server.kill("SIGSTOP");
    const frozenAt = Date.now();
    let resumedAt: number | undefined;
    const resume = setTimeout(() => {
      server.kill("SIGCONT");
      resumedAt = Date.now();
    }, FREEZE_MS);
    /** Each answer before the first 200: its status and code, its duration, and when it came. */
    const answers: { status: number; code: string | null; ms: number; at: number }[] = [];
    let signedInAt: number | undefined;
    try {
      for (;;) {
        const startedAt = Date.now();
        const response = await login();
        const ms = Date.now() - startedAt;
        await response.arrayBuffer();
        if (response.status === 200 && resumedAt !== undefined) {
          signedInAt = Date.now();
          break;
        }
        answers.push({
          status: response.status,
          code: response.headers.get("auth-error-code"),
          ms,
          at: Date.now(),
        });
        if (resumedAt !== undefined && Date.now() - resumedAt > GIVE_UP_MS) break;
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, RETRY_MS - ms)));
      }
    } finally {
      clearTimeout(resume);
      server.kill("SIGCONT");
    }
    const back = resumedAt ?? frozenAt + FREEZE_MS;
    const during = answers.filter((answer) => answer.at < back);
    const after = answers.filter((answer) => answer.at >= back);
    const figures = {
      duringFreeze: during.length,
      duringCodes: [...new Set(during.map((answer) => `${answer.status} ${answer.code}`))],
      slowestDuringMs: Math.max(...during.map((answer) => answer.ms)),
      refusedAfterResume: after.length,
      afterCodes: [...new Set(after.map((answer) => `${answer.status} ${answer.code}`))],
      recoveryMs: signedInAt === undefined ? null : signedInAt - back,
    };
    console.info("redis frozen 10 s, retrying every 250 ms", figures);
    expect(during.length).toBeGreaterThanOrEqual(8);
    expect(figures.duringCodes).toEqual(["500 EMAIL_COOLDOWN_CACHE_FAILURE"]);
    expect(figures.slowestDuringMs).toBeLessThan(FAILING_MS);
    expect(figures.recoveryMs).not.toBeNull();
    expect(figures.recoveryMs).toBeLessThanOrEqual(RECOVERY_MS);
  }, 60_000);
});
