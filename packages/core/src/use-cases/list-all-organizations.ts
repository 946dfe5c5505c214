import type { AuthContext } from "../context.js";
import { guardPort } from "../errors.js";
import { adminOrganizationsInput } from "../organizations/inputs.js";
import { organizationsOn } from "../organizations/membership.js";
import { type OrganizationView, toOrganizationView } from "../organizations/views.js";
import type { Acting } from "../sessions/admin-actor.js";
import { parseInput } from "../validation.js";

/** A page of `admin.listOrganizations`: `nextCursor` is null on the last page. */
export interface OrganizationPageView {
  items: OrganizationView[];
  nextCursor: string | null;
}

/**
 * Every organization whose slug or name starts with `query` (case-insensitive; empty: all), by
 * id, `limit` at a time (1 to 100, default 20, also as text; `cursor` from the previous page).
 * `NOT_FOUND` when organizations are off. Emits `admin.organizations_listed`.
 */
export async function listAllOrganizations(
  ctx: AuthContext,
  acting: Acting,
  input?: { query?: string | undefined; cursor?: string | undefined; limit?: number | string | undefined },
): Promise<OrganizationPageView> {
  const { store } = organizationsOn(ctx);
  const { query, cursor, limit } = parseInput(adminOrganizationsInput, input ?? {});
  const page = await guardPort("DATABASE_FAILURE", () => store.listOrganizations({ query, cursor, limit }));
  ctx.events.emit("admin.organizations_listed", { ...acting.request, actor: acting.actor });
  return { items: page.items.map(toOrganizationView), nextCursor: page.nextCursor };
}
