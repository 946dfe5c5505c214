// What the organization tests of the adapter suite share (organizations.ts,
// organization-members.ts, organization-invitations.ts): an app with organizations on, members
// with verified addresses, and the steps every test takes (create, invite, accept, activate).
import type { AuthOptions } from "@portcullis/core";
import { expect } from "vitest";
import type { CallInit, HttpReply } from "../http-client.js";
import { type App, type Boot, linkToken, PASSWORD, type SignedIn } from "./fixture.js";

/** The host's permissions of the examples: plain members may only read projects. */
export const ORGANIZATIONS: NonNullable<AuthOptions["organizations"]> = {
  permissions: ["project:read", "project:write", "project:delete"],
  memberPermissions: ["project:read"],
};

/** The app with organizations on (and the back office, for its listing). */
export const bootOrganizations = (boot: Boot, overrides: Partial<AuthOptions> = {}) =>
  boot({
    organizations: ORGANIZATIONS,
    email: { loginAlerts: false },
    admin: { authorize: async (_principal, user) => user.email.startsWith("admin") },
    ...overrides,
  });

/** A signed-in account whose address is verified, and its address. */
export type Member = SignedIn & { email: string };

/** Signs up `email` (verified by the host) and signs in. */
export async function member(app: App, email: string, verified = true): Promise<Member> {
  const signed = await app.signUp(email);
  if (verified) await app.auth.host.markEmailVerified({}, signed.user.id);
  return { ...signed, email };
}

/** A call as `who` (its access token, or another token given as `bearer`). */
export const as = (
  app: App,
  who: { accessToken: string },
  label: string,
  method: string,
  path: string,
  init: CallInit = {},
): Promise<HttpReply> => app.call(label, method, `/api/auth${path}`, { bearer: who.accessToken, ...init });

/** `owner` creates an organization; its id. */
export async function createOrganization(app: App, owner: Member, name: string, slug?: string) {
  const body = slug === undefined ? { name } : { name, slug };
  const reply = await as(app, owner, `create ${name}`, "POST", "/organizations", { body });
  expect(reply.status, reply.text).toBe(201);
  return String((reply.body.organization as { id: string }).id);
}

/** The token of the newest invitation email to `to`. */
export function invitationToken(app: App, to: string): string {
  const message = app.emails.filter((email) => /invitation/i.test(email.kind) && email.to === to).at(-1);
  expect(message, `an invitation email to ${to}`).toBeDefined();
  return linkToken(message);
}

/** `inviter` invites `email` with `role`; the reply. */
export const invite = (app: App, inviter: Member, organizationId: string, email: string, role: string) =>
  as(app, inviter, `invite ${email} as ${role}`, "POST", `/organizations/${organizationId}/invitations`, {
    body: { email, role },
  });

/** `inviter` invites `invitee`, who accepts: `invitee` is then a member with `role`. */
export async function join(app: App, inviter: Member, organizationId: string, invitee: Member, role: string) {
  const invited = await invite(app, inviter, organizationId, invitee.email, role);
  expect(invited.status, invited.text).toBe(201);
  await app.auth.idle();
  const accepted = await as(app, invitee, `${invitee.email} accepts`, "POST", "/invitations/accept", {
    body: { token: invitationToken(app, invitee.email) },
  });
  expect(accepted.status, accepted.text).toBe(200);
  expect(accepted.body).toMatchObject({ role });
}

/** `who` makes `organizationId` the active organization of its session; the new access token. */
export async function activate(app: App, who: Member, organizationId: string): Promise<Member> {
  const reply = await as(
    app,
    who,
    `${who.email} activates`,
    "POST",
    `/organizations/${organizationId}/activate`,
  );
  expect(reply.status, reply.text).toBe(200);
  return { ...who, accessToken: String(reply.body.accessToken) };
}

/**
 * The host route guarded by `requirePermission(auth, "project:read")` (GET) or `project:write`
 * (POST). Not in the transcript: the host's framework writes its own answers (headers differ).
 */
export const projects = (app: App, who: { accessToken: string }, label: string, method: "GET" | "POST") =>
  app.call(label, method, "/host/projects", {
    bearer: who.accessToken,
    record: false,
    ...(method === "POST" ? { body: {} } : {}),
  });

/** A step-up of `who`'s session: the header a step-up route needs. */
export async function stepUp(app: App, who: Member): Promise<Record<string, string>> {
  const reply = await as(app, who, "step-up", "POST", "/step-up", { body: { password: PASSWORD } });
  expect(reply.status, reply.text).toBe(200);
  return { "x-step-up-token": String(reply.body.stepUpToken) };
}

/** owner@example.test, signed in, and the organization Acme (slug `acme`) it made. */
export async function acmeOwner(app: App) {
  const owner = await member(app, "owner@example.test");
  const organizationId = await createOrganization(app, owner, "Acme", "acme");
  return { owner, organizationId };
}

/** An owner with an organization, and one member of each built-in role below owner. */
export async function team(app: App) {
  const { owner, organizationId } = await acmeOwner(app);
  const admin = await member(app, "manager@example.test");
  const plain = await member(app, "plain@example.test");
  await join(app, owner, organizationId, admin, "admin");
  await join(app, owner, organizationId, plain, "member");
  return { owner, admin, plain, organizationId };
}

/** The app with organizations on (`bootOrganizations`) and its `team`. */
export async function bootTeam(boot: Boot) {
  const app = await bootOrganizations(boot);
  return { app, ...(await team(app)) };
}
