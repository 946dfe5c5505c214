import { createMemoryStores } from "@portcullis/store-memory";
import { describe, expect, it } from "vitest";
import { createAuth } from "./create-auth/create-auth.js";
import type { SecurityEvent } from "./events.js";
import { createLineLogger, fastHasher, PASSWORD } from "./test-support.js";

describe("security events", () => {
  it("onEvent - sign-ins, failures, throttling and revocations with user, IP and user agent; never a secret; also logged", async () => {
    const events: SecurityEvent[] = [];
    const { logger, lines } = createLineLogger();
    const auth = createAuth({
      secret: "events-secret-lzthzZpHhoDtsD9XYEK-9LGJc16Z1QWTMqquOJVbQbU",
      stores: createMemoryStores({ sweepIntervalMs: 0 }),
      logger,
      passwordHasher: fastHasher(),
      email: { enabled: false },
      onEvent: (event) => {
        events.push(event);
        throw new Error("a broken hook never fails a request");
      },
    });
    const request = { ip: "203.0.113.7", userAgent: "Agent\r\nX-Injected: 1" };
    await auth.register({ request }, { email: "ada@example.test", password: PASSWORD });
    for (let i = 0; i < 6; i++)
      await auth.login({ request }, { email: "ada@example.test", password: "wrong guess!!" }).catch(() => {});
    await auth
      .login({ request }, { email: "nobody@example.test", password: "wrong guess!!" })
      .catch(() => {});
    expect(events.map((event) => [event.type, event.reason])).toEqual([
      ["user.created", "register"],
      ...Array.from({ length: 5 }, () => ["login.failed", "wrong_password"]),
      ["login.throttled", "address"],
      ["login.failed", "unknown_email"],
    ]);
    expect(events[1]).toMatchObject({
      userId: expect.any(String),
      ip: "203.0.113.7",
      userAgent: "Agent??X-Injected: 1",
    });
    expect(events[7]).toMatchObject({ userId: null });
    const text = JSON.stringify(events) + lines.join("\n");
    expect(text).not.toContain(PASSWORD);
    expect(text).not.toContain("wrong guess");
    expect(text).not.toContain("\r\n");
    expect(lines.filter((line) => line.includes('"login.throttled"'))[0]).toContain('"level":"warn"');
    expect(lines.some((line) => line.includes("on_event.failed"))).toBe(true);
  });
});
