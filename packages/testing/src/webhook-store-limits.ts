// The WebhookStore conformance tests of createEndpoint's per-scope limit (run by webhook-store-suite.ts).
import type { WebhookEndpoint } from "@portcullis/core";
import { expect } from "vitest";
import { type StoreTests, uniqueId } from "./store-fixture.js";
import type { WebhookContext } from "./webhook-store-context.js";

/** How many creations race in one scope, and how many of them fit. */
const RACING = 10;
const MAX_PER_SCOPE = 3;

/**
 * Starts a creation of each endpoint of `races` (one list per scope) in one tick with
 * `maxPerScope`, and resolves to the outcomes of each list.
 */
async function race(
  { store }: WebhookContext,
  races: WebhookEndpoint[][],
  maxPerScope: number,
): Promise<string[][]> {
  const all = races.flat();
  const outcomes = await Promise.all(
    all.map((endpoint) => store.createEndpoint(structuredClone(endpoint), { maxPerScope })),
  );
  let next = 0;
  return races.map((endpoints) => endpoints.map(() => outcomes[next++] as string));
}

/**
 * Checks that exactly `room` of `endpoints` were created, that the scope lists those after
 * `before` (oldest first), and that the others left nothing behind.
 */
async function expectRoomKept(
  { store }: WebhookContext,
  scope: string | null,
  endpoints: WebhookEndpoint[],
  outcomes: string[],
  room: number,
  before: WebhookEndpoint[] = [],
) {
  expect(outcomes.filter((outcome) => outcome === "created")).toHaveLength(room);
  expect(outcomes.filter((outcome) => outcome === "limit-reached")).toHaveLength(endpoints.length - room);
  const created = endpoints.filter((_, i) => outcomes[i] === "created");
  expect(await store.listEndpoints(scope)).toEqual([...before, ...created]);
  for (const [i, endpoint] of endpoints.entries())
    expect(await store.findEndpoint(endpoint.id)).toEqual(outcomes[i] === "created" ? endpoint : null);
}

/** The tests of `createEndpoint`'s `maxPerScope`. */
export const WEBHOOK_LIMIT_TESTS: StoreTests<WebhookContext>[string] = {
  "createEndpoint - N=10 concurrent creates with maxPerScope 3: exactly 3 created, on one scope; another scope counts apart":
    async (context) => {
      const { store, endpoint, stored } = context;
      const organizationId = uniqueId("org");
      const full = uniqueId("org");
      const fullOnes = [];
      for (let i = 0; i < MAX_PER_SCOPE; i++) fullOnes.push(await stored({ organizationId: full }));
      const ofOrganization = Array.from({ length: RACING }, () => endpoint({ organizationId }));
      const ofDeployment = Array.from({ length: RACING }, () => endpoint({ organizationId: null }));
      const [organizationOutcomes, deploymentOutcomes] = await race(
        context,
        [ofOrganization, ofDeployment],
        MAX_PER_SCOPE,
      );
      await expectRoomKept(
        context,
        organizationId,
        ofOrganization,
        organizationOutcomes ?? [],
        MAX_PER_SCOPE,
      );
      await expectRoomKept(context, null, ofDeployment, deploymentOutcomes ?? [], MAX_PER_SCOPE);
      // The full organization stayed as it was, and is still full.
      expect(await store.listEndpoints(full)).toEqual(fullOnes);
      const refused = endpoint({ organizationId: full });
      expect(await store.createEndpoint(structuredClone(refused), { maxPerScope: MAX_PER_SCOPE })).toBe(
        "limit-reached",
      );
      expect(await store.findEndpoint(refused.id)).toBeNull();
      expect(await store.listEndpoints(undefined)).toHaveLength(3 * MAX_PER_SCOPE);
    },
  "createEndpoint - concurrent creates on top of stored endpoints fill only the room left": async (
    context,
  ) => {
    const { endpoint, stored } = context;
    const organizationId = uniqueId("org");
    const before = [await stored({ organizationId }), await stored({ organizationId, enabled: false })];
    const racing = Array.from({ length: RACING }, () => endpoint({ organizationId }));
    const [outcomes] = await race(context, [racing], before.length + 2);
    await expectRoomKept(context, organizationId, racing, outcomes ?? [], 2, before);
  },
  "createEndpoint - limit-reached stores nothing; disabled endpoints count; a deleted endpoint makes room":
    async ({ store, stored, endpoint }) => {
      const live = await stored();
      const disabled = await stored({ enabled: false, disabledReason: "gone" });
      const refused = endpoint();
      const limits = { maxPerScope: 2 };
      expect(await store.createEndpoint(structuredClone(refused), limits)).toBe("limit-reached");
      expect(await store.findEndpoint(refused.id)).toBeNull();
      expect(await store.listEndpoints(null)).toEqual([live, disabled]);
      expect(await store.listEndpoints(undefined)).toEqual([live, disabled]);
      expect(await store.deleteEndpoint(disabled.id)).toBe(true);
      expect(await store.createEndpoint(structuredClone(refused), limits)).toBe("created");
      expect(await store.listEndpoints(null)).toEqual([live, refused]);
      // An organization's first endpoint, beside a full deployment scope.
      const first = endpoint({ organizationId: uniqueId("org") });
      expect(await store.createEndpoint(structuredClone(first), limits)).toBe("created");
      expect(await store.findEndpoint(first.id)).toEqual(first);
    },
};
