import type { AuthContext } from "../context.js";
import { guardPort } from "../errors.js";
import type { Call } from "../model.js";
import { organizationsOn } from "../organizations/membership.js";
import { type OrganizationView, toOrganizationView } from "../organizations/views.js";
import { signedIn } from "../sessions/signed-in.js";

/** The signed-in user's organizations with their role in each, oldest membership first. */
export async function listOrganizations(
  ctx: AuthContext,
  call: Call,
): Promise<{ items: { organization: OrganizationView; role: string }[] }> {
  const { store } = organizationsOn(ctx);
  const principal = signedIn(call);
  const memberships = await guardPort("DATABASE_FAILURE", () =>
    store.listMembershipsOfUser(principal.userId),
  );
  return {
    items: memberships.map(({ organization, membership }) => ({
      organization: toOrganizationView(organization),
      role: membership.role,
    })),
  };
}
