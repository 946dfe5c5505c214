import { describe, expect, it } from "vitest";
import type { Auth } from "../create-auth/create-auth.js";
import { createTestAuth, PASSWORD } from "../test-support.js";
import { createGuardHook, type GuardTarget } from "./guard.js";
import type { HttpRequest, HttpResponse } from "./types.js";

interface Target extends GuardTarget {
  headers: HttpRequest["headers"];
}
type Reply = { sent?: HttpResponse };

/** A hook whose requests carry only headers and whose refusals are kept on the reply. */
function hookFor(auth: Auth, permission?: string) {
  const toRequest = (target: Target) => ({ method: "GET", url: "/orders", headers: target.headers });
  const refuse = (reply: Reply, refusal: HttpResponse) => {
    reply.sent = refusal;
    return "refused" as const;
  };
  return createGuardHook(auth, toRequest, refuse, permission);
}

/** A new user's request with the access token of a session the host started. */
async function signedIn(auth: Auth): Promise<{ target: Target; userId: string }> {
  const user = await auth.host.createUser({}, { email: "ada@example.test", password: PASSWORD });
  const { accessToken } = await auth.sessions.create({}, { userId: user.id });
  return { target: { headers: { authorization: `Bearer ${accessToken}` } }, userId: user.id };
}

describe("createGuardHook", () => {
  it("createGuardHook - sets auth on the request and passes, or sends the refusal on the reply", async () => {
    const { auth } = createTestAuth();
    const { target, userId } = await signedIn(auth);
    const passed: Reply = {};
    expect(await hookFor(auth)(target, passed)).toBeUndefined();
    expect(target.auth?.userId).toBe(userId);
    expect(passed.sent).toBeUndefined();

    const anonymous: Target = { headers: {} };
    const refused: Reply = {};
    expect(await hookFor(auth)(anonymous, refused)).toBe("refused");
    expect(refused.sent?.status).toBe(401);
    expect(anonymous.auth).toBeUndefined();
  });

  it("createGuardHook - with a permission, refuses it while organizations are off (403), the request left as it was", async () => {
    const { auth } = createTestAuth();
    const { target } = await signedIn(auth);
    const reply: Reply = {};
    expect(await hookFor(auth, "project:read")(target, reply)).toBe("refused");
    expect(reply.sent?.status).toBe(403);
    expect(JSON.parse(reply.sent?.body ?? "{}").code).toBe("PERMISSION_DENIED");
    expect(target.auth).toBeUndefined();
  });
});
