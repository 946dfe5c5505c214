import { createMemoryAuditLogStore } from "@portcullis/store-memory";
import { describe, expect, it } from "vitest";
import { auditDraft } from "../../audit/draft.js";
import { auditPages, csvCell, csvChunks } from "../../audit/export.js";
import { AUDIT_COLUMNS, DEPLOYMENT_AUDIT_VIEW, ORGANIZATION_AUDIT_COLUMNS } from "../../audit/query.js";
import { createAuditSeal } from "../../audit/seal.js";
import type { AuditLogStore } from "../../ports/audit-log-store.js";
import { createTestAuth, PASSWORD, signIn, TEST_SECRET } from "../../test-support.js";
import { createHttpHandler } from "../handler.js";
import type { HttpResponse } from "../types.js";

/** Organizations and the back office on; `admin@…` is an admin. */
async function setup() {
  const env = createTestAuth({
    email: { loginAlerts: false },
    organizations: { permissions: ["project:read"] },
    admin: { authorize: (_principal, user) => user.email.startsWith("admin") },
  });
  const handler = createHttpHandler(env.auth);
  const tokenOf = async (email: string) => {
    await env.auth.host.createUser({}, { email, password: PASSWORD, emailVerified: true });
    return (await signIn(env.auth, { email, password: PASSWORD })).accessToken;
  };
  const send = async (path: string, token: string, extra: Record<string, string> = {}) =>
    (await handler.handle({
      method: "GET",
      url: `/api/auth${path}`,
      headers: { authorization: `Bearer ${token}`, ...extra },
    })) as HttpResponse;
  return { ...env, tokenOf, send };
}

const json = (response: HttpResponse) => JSON.parse(String(response.body));

/**
 * `cursor` names `seq` (the page's last entry) in no readable form: not `a<seq>` (the old cursor,
 * or its base64url), and the sealed text (`a` and 16 digits) nowhere in its bytes. Not "contains
 * `a<seq>`": the sealed bytes are random, and two of them read as `a6` now and then.
 */
function expectSealed(cursor: string, seq: number | undefined) {
  const decoded = Buffer.from(cursor, "base64url").toString("latin1");
  expect(decoded).not.toMatch(/^a\d+$/);
  expect(cursor).not.toBe(Buffer.from(`a${seq}`).toString("base64url"));
  expect(decoded).not.toContain(`a${String(seq).padStart(16, "0")}`);
}

/** The whole text of a streamed response. */
async function text(response: HttpResponse): Promise<string> {
  let all = "";
  for await (const chunk of response.stream ?? []) all += String(chunk);
  return all;
}

describe("audit-log routes", () => {
  it("GET /organizations/:id/audit-log - owner 200 with filters and cursor paging; bad filters 400; non-member 404", async () => {
    const { auth, stores, tokenOf, send } = await setup();
    const owner = await tokenOf("owner@example.test");
    const principal = await auth.authenticate({ token: owner });
    const { organization } = await auth.organizations.create({ principal }, { name: "Acme" });
    for (const name of ["r1", "r2", "r3"])
      await auth.organizations.createRole(
        { principal },
        { organizationId: organization.id, body: { name, permissions: [] } },
      );
    const path = `/organizations/${organization.id}/audit-log`;
    const first = await send(`${path}?limit=2`, owner);
    expect(first.status).toBe(200);
    const page = json(first);
    expect(page.items.map((item: { type: string }) => item.type)).toEqual(["role.created", "role.created"]);
    expect(page.items[0]).toMatchObject({
      organizationId: organization.id,
      actorType: "user",
      actorId: principal.userId,
    });
    const second = json(await send(`${path}?limit=2&cursor=${page.nextCursor}`, owner));
    expect(second.items.map((item: { type: string }) => item.type)).toEqual([
      "role.created",
      "organization.created",
    ]);
    expect(second.nextCursor).toBeNull();
    // Nothing of the rest of the deployment: no `seq`, no `prevHash`; every entry once, in order.
    const seen = [...page.items, ...second.items];
    for (const item of seen) {
      expect(item).not.toHaveProperty("seq");
      expect(item).not.toHaveProperty("prevHash");
      expect(Object.keys(item)).toEqual([...ORGANIZATION_AUDIT_COLUMNS]);
    }
    const all = json(await send(path, owner)).items;
    expect(seen.map((item: { id: string }) => item.id)).toEqual(all.map((item: { id: string }) => item.id));
    expect(new Set(seen.map((item: { id: string }) => item.id)).size).toBe(4);
    const filtered = json(await send(`${path}?type=organization.created`, owner));
    expect(filtered.items).toHaveLength(1);
    expect(json(await send(`${path}?actor=nobody`, owner)).items).toEqual([]);
    expect(json(await send(`${path}?from=2030-01-01`, owner)).items).toEqual([]);
    const bad = await send(`${path}?from=yesterday&limit=0&format=xml`, owner);
    expect(bad.status).toBe(400);
    expect(json(bad).code).toBe("VALIDATION_FAILED");
    expect(json(await send(`${path}?from=2026-02-01&to=2026-01-01`, owner)).code).toBe("VALIDATION_FAILED");

    // The cursor is sealed: the same place gives another text each time, none shows the seq.
    const again = json(await send(`${path}?limit=2`, owner));
    expect(again.items).toEqual(page.items);
    expect(again.nextCursor).not.toBe(page.nextCursor);
    const entries = await stores.auditLog.list({ organizationId: organization.id, order: "desc", limit: 10 });
    const seq = entries.find((entry) => entry.id === page.items[1].id)?.seq;
    expect(seq).toBeGreaterThan(0);
    for (const cursor of [page.nextCursor, again.nextCursor]) expectSealed(cursor, seq);
    expect(json(await send(`${path}?limit=2&cursor=${again.nextCursor}`, owner)).items).toEqual(second.items);
    // A cursor changed by one character, cut short, or made as the old ones were: 400 at `cursor`.
    const flipped = `${page.nextCursor.slice(0, 20)}${page.nextCursor[20] === "A" ? "B" : "A"}${page.nextCursor.slice(21)}`;
    const forged = Buffer.from("a3").toString("base64url");
    for (const cursor of [flipped, page.nextCursor.slice(0, -4), forged, "%%%"]) {
      const refused = await send(`${path}?cursor=${encodeURIComponent(cursor)}`, owner);
      expect(refused.status).toBe(400);
      expect(json(refused)).toMatchObject({ code: "VALIDATION_FAILED", errors: [{ path: "cursor" }] });
    }

    const stranger = await send(path, await tokenOf("eve@example.test"));
    expect(stranger.status).toBe(404);
    expect(json(stranger).code).toBe("ORGANIZATION_NOT_FOUND");
  });

  it("GET /organizations/:id/audit-log - a member whose role lacks audit:read: 403 PERMISSION_DENIED", async () => {
    const { auth, sent, tokenOf, send } = await setup();
    const owner = await tokenOf("owner@example.test");
    const principal = await auth.authenticate({ token: owner });
    const { organization } = await auth.organizations.create({ principal }, { name: "Acme" });
    const member = await tokenOf("member@example.test");
    const body = { email: "member@example.test", role: "member" };
    await auth.organizations.invite({ principal }, { organizationId: organization.id, body });
    await auth.idle();
    const token = /token=([A-Za-z0-9_-]+)/.exec(String(sent.at(-1)?.text))?.[1];
    await auth.organizations.acceptInvitation(
      { principal: await auth.authenticate({ token: member }) },
      { token: token ?? "" },
    );
    const refused = await send(`/organizations/${organization.id}/audit-log`, member);
    expect(refused.status).toBe(403);
    expect(json(refused).code).toBe("PERMISSION_DENIED");
    const owners = json(await send(`/organizations/${organization.id}/audit-log?type=member.joined`, owner));
    expect(owners.items).toHaveLength(1);
  });

  it("GET /organizations/:id/audit-log?format=ndjson|csv - an export streamed as an attachment", async () => {
    const { auth, tokenOf, send } = await setup();
    const owner = await tokenOf("owner@example.test");
    const principal = await auth.authenticate({ token: owner });
    const { organization } = await auth.organizations.create({ principal }, { name: "Acme" });
    await auth.organizations.update(
      { principal },
      { organizationId: organization.id, body: { name: "=HYPERLINK(1)" } },
    );
    const path = `/organizations/${organization.id}/audit-log`;
    const ndjson = await send(`${path}?format=ndjson`, owner);
    expect(ndjson.status).toBe(200);
    expect(ndjson.headers["content-type"]).toBe("application/x-ndjson");
    expect(ndjson.headers["content-disposition"]).toMatch(/^attachment; filename="audit-log-.*\.ndjson"$/);
    const lines = (await text(ndjson))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => line.type)).toEqual(["organization.created", "organization.updated"]);
    for (const line of lines) {
      expect(line).not.toHaveProperty("seq");
      expect(line).not.toHaveProperty("prevHash");
      expect(line).toHaveProperty("orgPrevHash");
    }
    expect(new Set(lines.map((line) => line.id)).size).toBe(2);
    const csv = await send(`${path}?format=csv&type=organization.updated`, owner);
    expect(csv.headers["content-type"]).toBe("text/csv; charset=utf-8");
    const rows = (await text(csv)).split("\r\n");
    expect(rows[0]).toBe(
      "id,at,type,actorType,actorId,userId,organizationId,sessionId,ip,userAgent,reason,orgPrevHash,hash",
    );
    expect(rows).toHaveLength(3); // header, one row, the final CRLF
    expect(rows[1]).toContain(",organization.updated,user,");
  });

  it("GET /admin/audit-log - admin only (with step-up), the whole deployment, organizationId filter, export; verify names a broken link", async () => {
    const { auth, stores, tokenOf, send } = await setup();
    const user = await tokenOf("ada@example.test");
    expect((await send("/admin/audit-log", user, { "x-step-up-token": "x" })).status).toBe(403);
    const admin = await tokenOf("admin@example.test");
    const principal = await auth.authenticate({ token: admin });
    const stepped = await auth.stepUp({ principal }, { password: PASSWORD });
    if (stepped.twoFactorRequired) throw new Error("2FA");
    const headers = { "x-step-up-token": stepped.stepUpToken };
    expect((await send("/admin/audit-log", admin)).status).toBe(401);
    const { organization } = await auth.organizations.create({ principal }, { name: "Acme" });
    const all = json(await send("/admin/audit-log?limit=200", admin, headers));
    expect(all.items.length).toBeGreaterThan(4);
    const types = all.items.map((item: { type: string }) => item.type);
    expect(types).toContain("user.created");
    expect(types).toContain("login.succeeded");
    const scoped = json(await send(`/admin/audit-log?organizationId=${organization.id}`, admin, headers));
    expect(scoped.items.map((item: { type: string }) => item.type)).toEqual(["organization.created"]);
    // The deployment's view keeps every field, `seq` and `prevHash` among them.
    expect(Object.keys(scoped.items[0])).toEqual([...AUDIT_COLUMNS]);
    expect(scoped.items[0].seq).toBeGreaterThan(1);
    // Its cursor is sealed as the organization's, and pages the same way.
    const firstTwo = json(await send("/admin/audit-log?limit=2", admin, headers));
    expectSealed(firstTwo.nextCursor, firstTwo.items[1].seq);
    const nextTwo = json(
      await send(`/admin/audit-log?limit=2&cursor=${firstTwo.nextCursor}`, admin, headers),
    );
    expect([...firstTwo.items, ...nextTwo.items]).toEqual(all.items.slice(0, 4));
    const csv = await send("/admin/audit-log?format=csv", admin, headers);
    const csvRows = (await text(csv)).split("\r\n");
    expect(csvRows.length).toBeGreaterThan(all.items.length);
    expect(csvRows[0]).toBe(AUDIT_COLUMNS.join(","));
    expect(csvRows[0]?.startsWith("id,seq,at,")).toBe(true);
    const ndjson = (await text(await send("/admin/audit-log?format=ndjson", admin, headers)))
      .trim()
      .split("\n");
    expect(JSON.parse(ndjson[0] ?? "")).toMatchObject({ seq: 1, prevHash: expect.any(String) });
    expect(json(await send("/admin/audit-log/verify", admin, headers))).toMatchObject({ ok: true });
    const verifyOrg = json(
      await send(`/admin/audit-log/verify?organizationId=${organization.id}`, admin, headers),
    );
    expect(verifyOrg).toEqual({ ok: true, checked: 1 });
    // A row changed in the store directly: the verify route finds it.
    const store = stores.auditLog;
    const list = store.list.bind(store);
    store.list = async (query) =>
      (await list(query)).map((entry) => (entry.seq === 2 ? { ...entry, ip: "198.51.100.1" } : entry));
    const broken = json(await send("/admin/audit-log/verify", admin, headers));
    expect(broken).toMatchObject({ ok: false, broken: { seq: 2, reason: "hash" } });
  });
});

describe("audit export", () => {
  it("csvCell - quoting and the formula guard", () => {
    expect(csvCell(null)).toBe("");
    expect(csvCell(12)).toBe("12");
    expect(csvCell("plain")).toBe("plain");
    expect(csvCell('say "hi", ok')).toBe('"say ""hi"", ok"');
    for (const start of ["=", "+", "-", "@", "\t", "\r"])
      expect(csvCell(`${start}1`).replace(/"/g, "")).toBe(`'${start}1`);
    expect(csvCell("a\nb")).toBe('"a\nb"');
  });

  it("auditPages - 2,000 entries exported in pages, never all read at once", async () => {
    const memory = createMemoryAuditLogStore();
    const seal = createAuditSeal([TEST_SECRET]);
    const event = {
      type: "login.succeeded" as const,
      time: 1,
      userId: "u",
      sessionId: null,
      ip: null,
      userAgent: "=cmd",
      reason: null,
    };
    for (let i = 0; i < 4; i++)
      await memory.append(
        Array.from({ length: 500 }, (_, j) => auditDraft(event, `id${i * 500 + j}`)),
        seal.seal,
      );
    const limits: number[] = [];
    let readAhead = 0;
    let consumed = 0;
    const store: AuditLogStore = {
      ...memory,
      async list(query) {
        limits.push(query.limit);
        readAhead = Math.max(readAhead, limits.length * 300 - consumed);
        return memory.list(query);
      },
    };
    let rows = 0;
    for await (const chunk of csvChunks(auditPages(store, {}, 300), DEPLOYMENT_AUDIT_VIEW)) {
      const count = chunk.split("\r\n").length - 1;
      consumed += count;
      rows += count;
      if (count > 1) expect(chunk).toContain(",'=cmd,");
    }
    expect(rows).toBe(2001); // the header and 2,000 entries
    expect(limits).toEqual([300, 300, 300, 300, 300, 300, 300]);
    expect(readAhead).toBeLessThanOrEqual(301);
  });
});
