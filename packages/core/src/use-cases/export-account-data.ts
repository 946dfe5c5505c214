import type { AccountExport } from "../account/export.js";
import { listActivityPage, MAX_ACTIVITY_PAGE } from "../activity/list.js";
import type { AuthContext } from "../context.js";
import { guardPort } from "../errors.js";
import { type Call, toUserAccount } from "../model.js";
import { liveSessions, sessionInfo } from "../sessions/session-lifecycle.js";
import { requireStepUp } from "../two-factor/settings.js";

/** The most activity pages an export reads (10 000 entries); the retention keeps far fewer. */
const MAX_ACTIVITY_PAGES = 100;

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * What is stored about the signed-in user (with a step-up), as one JSON document (docs/concepts.md, "Account self-service"):
 * the user record's fields, the sessions with their devices, identity-provider links, passkeys,
 * the 2FA methods turned on and the activity. Never a password hash, TOTP secret, recovery code, token or
 * token hash. Emits `account.exported`.
 */
export async function exportAccountData(ctx: AuthContext, call: Call): Promise<AccountExport> {
  const user = await requireStepUp(ctx, call);
  const sessions = (await liveSessions(ctx, user.id)).map((session) =>
    sessionInfo(session, call.principal?.sessionId),
  );
  const identities = ctx.identities;
  const links = identities ? await guardPort("DATABASE_FAILURE", () => identities.listByUser(user.id)) : [];
  const passkeyStore = ctx.passkeys;
  const passkeys = passkeyStore
    ? await guardPort("DATABASE_FAILURE", () => passkeyStore.listByUser(user.id))
    : [];
  const activity: AccountExport["activity"] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_ACTIVITY_PAGES; page += 1) {
    const { items, nextCursor } = await listActivityPage(ctx, user.id, { cursor, limit: MAX_ACTIVITY_PAGE });
    activity.push(...items);
    if (nextCursor === null) break;
    cursor = nextCursor;
  }
  const memberships = await membershipsOf(ctx, user.id);
  ctx.events.emit("account.exported", {
    ...call.request,
    userId: user.id,
    sessionId: call.principal?.sessionId ?? null,
  });
  return {
    exportedAt: iso(ctx.clock.now()),
    user: {
      ...toUserAccount(user),
      createdAt: iso(user.createdAt),
      lastSignInAt: user.lastSignInAt == null ? null : iso(user.lastSignInAt),
    },
    twoFactor: {
      methods: [...user.twoFactor.methods],
      preferredMethod: user.twoFactor.preferredMethod,
      recoveryCodesLeft: user.twoFactor.recoveryCodeHashes.length,
    },
    sessions,
    identities: links.map((link) => ({
      provider: link.provider,
      issuer: link.issuer,
      subject: link.subject,
      email: link.email,
      createdAt: iso(link.createdAt),
    })),
    passkeys: passkeys.map((passkey) => ({
      id: passkey.id,
      name: passkey.name,
      backedUp: passkey.backedUp,
      createdAt: iso(passkey.createdAt),
      lastUsedAt: passkey.lastUsedAt === null ? null : iso(passkey.lastUsedAt),
    })),
    activity,
    ...(memberships !== undefined ? { memberships } : {}),
  };
}

/** The user's memberships as the export lists them; undefined while organizations are off. */
async function membershipsOf(ctx: AuthContext, userId: string): Promise<AccountExport["memberships"]> {
  const store = ctx.organizations;
  if (store === undefined || ctx.options.organizations === undefined) return undefined;
  const found = await guardPort("DATABASE_FAILURE", () => store.listMembershipsOfUser(userId));
  return found.map(({ organization, membership }) => ({
    organization: { id: organization.id, name: organization.name, slug: organization.slug },
    role: membership.role,
    joinedAt: iso(membership.joinedAt),
  }));
}
