import type { WebhookEndpoint } from "@portcullis/core";
import { runWebhookStoreSuite } from "@portcullis/testing";
import { describe, expect, it } from "vitest";
import { createMemoryStores } from "./memory-stores.js";
import { createMemoryWebhookStore } from "./webhook-store.js";

runWebhookStoreSuite({
  name: "memory",
  create: () => {
    const stores = createMemoryStores({ sweepIntervalMs: 0 });
    return { store: stores.webhooks, cleanup: stores.close };
  },
});

const endpoint: WebhookEndpoint = {
  id: "0123456789abcdef0123456789abcdef",
  organizationId: null,
  url: "https://hooks.example.com/",
  events: ["*"],
  enabled: true,
  disabledReason: null,
  secrets: [{ sealed: "sealed", expiresAt: null }],
  createdBy: null,
  createdAt: 1_700_000_000_000,
  cursor: 0,
};

/** The memory store's own choices where the port leaves them open. */
describe("createMemoryWebhookStore", () => {
  it("updateEndpoint - a field given as undefined is left as it is", async () => {
    const store = createMemoryWebhookStore();
    expect(await store.createEndpoint(endpoint, { maxPerScope: 1 })).toBe("created");
    expect(await store.updateEndpoint(endpoint.id, { url: undefined, events: undefined })).toEqual(endpoint);
  });
});
