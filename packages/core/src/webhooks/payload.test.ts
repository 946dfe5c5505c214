import { describe, expect, it } from "vitest";
import type { AuditEntry } from "../ports/audit-log-store.js";
import { endpointWants, webhookBody, webhookPayload } from "./payload.js";

const entry: AuditEntry = {
  id: "a1b2",
  at: Date.UTC(2026, 5, 1, 12, 0, 0, 250),
  type: "member.role_changed",
  actorType: "user",
  actorId: "u1",
  userId: "u2",
  organizationId: "o1",
  sessionId: "s1",
  ip: "203.0.113.9",
  userAgent: "Firefox",
  reason: "admin",
  seq: 7,
  prevHash: "p",
  orgPrevHash: "q",
  hash: "h",
};

describe("webhook payload", () => {
  it("webhookPayload - type, ISO timestamp and the entry's fields, without its chain fields", () => {
    expect(webhookPayload(entry)).toEqual({
      type: "member.role_changed",
      timestamp: "2026-06-01T12:00:00.250Z",
      data: {
        id: "a1b2",
        actorType: "user",
        actorId: "u1",
        userId: "u2",
        organizationId: "o1",
        sessionId: "s1",
        reason: "admin",
        ip: "203.0.113.9",
        userAgent: "Firefox",
      },
    });
    expect(JSON.parse(webhookBody(entry))).toEqual(webhookPayload(entry));
    expect(webhookBody(entry)).not.toContain('"hash"');
  });

  it("endpointWants - the types it names or *, and an organization's endpoint only its organization's entries", () => {
    const deployment = { organizationId: null, events: ["*"] };
    expect(endpointWants(deployment, entry)).toBe(true);
    expect(endpointWants(deployment, { ...entry, organizationId: null })).toBe(true);
    expect(endpointWants({ organizationId: null, events: ["login.succeeded"] }, entry)).toBe(false);
    expect(endpointWants({ organizationId: null, events: ["login.succeeded", entry.type] }, entry)).toBe(
      true,
    );
    expect(endpointWants({ organizationId: "o1", events: ["*"] }, entry)).toBe(true);
    expect(endpointWants({ organizationId: "o2", events: ["*"] }, entry)).toBe(false);
    expect(endpointWants({ organizationId: "o1", events: ["*"] }, { ...entry, organizationId: null })).toBe(
      false,
    );
  });
});
