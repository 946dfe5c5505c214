import type { AuthContext } from "../context.js";
import { guardPort } from "../errors.js";
import type { Call } from "../model.js";
import { actingMember } from "../organizations/acting.js";
import { pageInput } from "../organizations/inputs.js";
import { parseInput } from "../validation.js";

/** A member as the organization's members see them. */
export interface MemberView {
  userId: string;
  /** Empty when the account is gone (its membership goes with its deletion). */
  email: string;
  name: string | null;
  role: string;
  /** ISO 8601. */
  joinedAt: string;
}

/**
 * The organization's members, oldest first, a page at a time (`{ cursor?, limit? }`, `limit` 1 to
 * 100, default 20); any member may list them. `ORGANIZATION_NOT_FOUND` for a non-member.
 */
export async function listMembers(
  ctx: AuthContext,
  call: Call,
  input: { organizationId: string; cursor?: string | undefined; limit?: number | string | undefined },
): Promise<{ items: MemberView[]; nextCursor: string | null }> {
  const { organizations } = await actingMember(ctx, call, input.organizationId);
  const page = parseInput(pageInput, { cursor: input.cursor, limit: input.limit });
  const found = await guardPort("DATABASE_FAILURE", () =>
    organizations.store.listMembers(input.organizationId, page),
  );
  const users = await Promise.all(
    found.items.map((membership) =>
      guardPort("DATABASE_FAILURE", () => ctx.users.findById(membership.userId)),
    ),
  );
  return {
    items: found.items.map((membership, index) => ({
      userId: membership.userId,
      email: users[index]?.email ?? "",
      name: users[index]?.name ?? null,
      role: membership.role,
      joinedAt: new Date(membership.joinedAt).toISOString(),
    })),
    nextCursor: found.nextCursor,
  };
}
