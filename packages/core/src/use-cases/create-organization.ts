import type { AuthContext } from "../context.js";
import { AuthError, guardPort } from "../errors.js";
import type { Call } from "../model.js";
import { createOrganizationInput } from "../organizations/inputs.js";
import { organizationsOn } from "../organizations/membership.js";
import { type OrganizationView, slugFromName, toOrganizationView } from "../organizations/views.js";
import type { OrganizationRecord } from "../ports/organization-store.js";
import { signedIn } from "../sessions/signed-in.js";
import { randomId } from "../tokens/random.js";
import { parseInput } from "../validation.js";

/** How many random suffixes a made-up slug tries before it gives up (`ORGANIZATION_SLUG_TAKEN`). */
const GENERATED_SLUG_TRIES = 3;

/**
 * The signed-in user creates an organization `{ name, slug? }` and becomes its owner. A given
 * slug that is taken: `ORGANIZATION_SLUG_TAKEN`; without one, the slug is made from the name, with
 * a short random suffix when that one is taken. `ORGANIZATION_LIMIT_REACHED` when the user belongs
 * to `maxPerUser` organizations already. Emits `organization.created`.
 */
export async function createOrganization(
  ctx: AuthContext,
  call: Call,
  input: unknown,
): Promise<{ organization: OrganizationView; role: "owner" }> {
  const { store, options } = organizationsOn(ctx);
  const principal = signedIn(call);
  const { name, slug } = parseInput(createOrganizationInput, input);
  const now = ctx.clock.now();
  const owner = (organizationId: string) => ({
    organizationId,
    userId: principal.userId,
    role: "owner",
    joinedAt: now,
  });
  const slugs = slug !== undefined ? [slug] : candidateSlugs(name);
  for (const candidate of slugs) {
    const record: OrganizationRecord = { id: randomId(), name, slug: candidate, createdAt: now };
    const result = await guardPort("DATABASE_FAILURE", () =>
      store.createOrganization(record, owner(record.id), { maxPerUser: options.maxPerUser }),
    );
    if (result === "limit-reached") throw new AuthError("ORGANIZATION_LIMIT_REACHED");
    if (result === "created") {
      ctx.events.emit("organization.created", {
        ...call.request,
        userId: principal.userId,
        sessionId: principal.sessionId,
        actor: principal.userId,
        organizationId: record.id,
      });
      return { organization: toOrganizationView(record), role: "owner" };
    }
  }
  throw new AuthError("ORGANIZATION_SLUG_TAKEN");
}

/** The slugs a name-made slug tries in turn: the plain one, then with random suffixes. */
function candidateSlugs(name: string): string[] {
  return [
    slugFromName(name),
    ...Array.from({ length: GENERATED_SLUG_TRIES }, () => slugFromName(name, true)),
  ];
}
