import { describe, expect, it } from "vitest";
import { code, PASSWORD, signIn } from "../test-support.js";
import { EMAIL, scenario } from "../test-support-faults.js";
import { parseRefreshToken } from "../tokens/refresh-token.js";

/** The `jti` an access token carries (read without checking: the test made it). */
const jtiOf = (accessToken: string): string =>
  JSON.parse(Buffer.from(accessToken.split(".")[1] ?? "", "base64url").toString()).jti;

/** The SHA-256 of a held refresh token, as its session stores it. */
const hashOf = (tokens: HeldTokens) => parseRefreshToken(tokens.refreshToken)?.hash;

interface HeldTokens {
  accessToken: string;
  refreshToken: string;
  sessionId: string;
}

/**
 * The steps that start, rotate and end sessions (docs/security.md, "Fail-safe order"), each
 * failed and crashed in turn. The invariant: an access token the client holds authenticates only
 * while it is the current one of a live session, so no held token outlives its session or its
 * rotation.
 */
describe("session lifecycle under faults", () => {
  type Scenario = Awaited<ReturnType<typeof lifecycleScenario>>;
  /** The flows: each runs against the scenario and resolves to the tokens it handed out, if any. */
  const FLOWS: Record<string, (s: Scenario, auth: Scenario["auth"]) => Promise<HeldTokens | undefined>> = {
    "login (start)": (_, auth) => signIn(auth, { email: EMAIL, password: PASSWORD }),
    "refresh (rotate)": (s, auth) => auth.refresh({ token: s.before.refreshToken }),
    "refresh (the replaced token within the reuse interval)": (s, auth) =>
      auth.refresh({ token: s.other.refreshToken }),
    "logout (end one)": async (s, auth) =>
      void (await auth.logout({}, { accessToken: s.before.accessToken })),
    "sessions.revoke (end one)": async (s, auth) =>
      void (await auth.sessions.revoke({ principal: s.principal }, s.other.sessionId)),
    "sessions.revokeAll (end the user's)": async (s, auth) =>
      void (await auth.sessions.revokeAll({ principal: s.principal })),
    "sessions.revokeOthers (end the user's others)": async (s, auth) =>
      void (await auth.sessions.revokeOthers({ principal: s.principal })),
  };

  async function lifecycleScenario() {
    const base = await scenario({ claims: true });
    const other = await signIn(base.auth, { email: EMAIL, password: PASSWORD });
    // `other` is rotated once: its first refresh token is now the parent, within the interval.
    const otherNext = await base.auth.refresh({ token: other.refreshToken });
    const principal = await base.auth.authenticate({ token: base.before.accessToken });
    return { ...base, other, otherNext, principal };
  }

  /** Every held access token that authenticates is the current one of its live session. */
  async function expectSafe(s: Scenario, checker: Scenario["auth"], held: HeldTokens[], label: string) {
    for (const tokens of held) {
      const answer = await code(checker.authenticate({ token: tokens.accessToken }));
      const session = await s.memory.sessions.getSession(tokens.sessionId);
      if (answer === "OK") expect(session?.accessTokenJti, label).toBe(jtiOf(tokens.accessToken));
    }
  }

  /** The store calls of a clean run of `flow`. */
  async function cleanSteps(flow: string): Promise<string[]> {
    const s = await lifecycleScenario();
    Object.assign(s.fault, { armed: true, at: 0, calls: [] });
    await FLOWS[flow]?.(s, s.auth);
    s.fault.armed = false;
    return s.fault.calls;
  }

  it("session lifecycle - starts, rotates and ends sessions in the fail-safe order", async () => {
    const before = (steps: string[], a: string, b: string) => {
      expect(steps.indexOf(a), `${a} in ${steps.join(", ")}`).toBeGreaterThanOrEqual(0);
      expect(steps.indexOf(a), `${a} before ${b}`).toBeLessThan(steps.indexOf(b));
    };
    before(await cleanSteps("login (start)"), "allowlist.allowAccessToken", "sessions.createSession");
    const rotate = await cleanSteps("refresh (rotate)");
    before(rotate, "allowlist.allowAccessToken", "sessions.rotateRefreshToken");
    before(rotate, "allowlist.revokeAccessTokens", "sessions.rotateRefreshToken");
    const current = await cleanSteps("refresh (the replaced token within the reuse interval)");
    before(current, "allowlist.allowAccessToken", "sessions.rotateRefreshToken");
    // The jti allowed for a rotation that did not happen is revoked after it: never handed out.
    before(current, "sessions.rotateRefreshToken", "allowlist.revokeAccessTokens");
    before(await cleanSteps("logout (end one)"), "allowlist.revokeAccessTokens", "sessions.deleteSession");
    const all = await cleanSteps("sessions.revokeAll (end the user's)");
    before(all, "sessions.listSessions", "allowlist.revokeAccessTokens");
    before(all, "allowlist.revokeAccessTokens", "sessions.deleteUserSessions");
  });

  for (const flow of Object.keys(FLOWS)) {
    it(`${flow} - a failure or a crash at any step leaves no held access token beyond its session`, async () => {
      const steps = await cleanSteps(flow);
      expect(steps.length).toBeGreaterThan(1);
      for (const mode of ["fail", "crash"] as const) {
        for (let at = 1; at <= steps.length; at++) {
          const s = await lifecycleScenario();
          Object.assign(s.fault, { armed: true, at, mode, calls: [] });
          const run = FLOWS[flow]?.(s, s.auth).then(
            (issued) => ({ issued }),
            () => ({ issued: undefined }),
          );
          if (mode === "fail") await run;
          else
            for (let waited = 0; s.fault.calls.length < at && waited < 2_000; waited += 5)
              await new Promise((resolve) => setTimeout(resolve, 5));
          s.fault.armed = false;
          const label = `${flow}: ${mode} at step ${at} (${steps[at - 1]})`;
          expect(s.fault.calls[at - 1], label).toBe(steps[at - 1]);
          const issued = mode === "fail" ? (await run)?.issued : undefined;
          const checker = mode === "crash" ? s.build() : s.auth;
          await expectSafe(s, checker, [s.before, s.other, s.otherNext, ...(issued ? [issued] : [])], label);
          // A refresh token that is still current refreshes: the client recovers by retrying.
          const current = await s.memory.sessions.getSession(s.before.sessionId);
          if (flow === "refresh (rotate)" && !issued && current?.refreshTokenHash === hashOf(s.before)) {
            expect(await code(checker.refresh({ token: s.before.refreshToken })), label).toBe("OK");
          }
          const other = await s.memory.sessions.getSession(s.other.sessionId);
          if (flow.includes("reuse interval") && !issued && other?.refreshTokenHash === hashOf(s.otherNext)) {
            expect(await code(checker.refresh({ token: s.other.refreshToken })), label).toBe("OK");
          }
        }
      }
    });
  }
});
