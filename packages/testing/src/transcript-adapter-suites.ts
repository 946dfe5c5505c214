import { runApiKeysAdapterSuite } from "./adapter-suite/api-keys.js";
import type { AdapterSuiteOptions } from "./adapter-suite/fixture.js";
import { runWebhooksAdapterSuite } from "./adapter-suite/webhooks.js";
import { runAdapterSuite, runOrganizationsAdapterSuite } from "./adapter-suite.js";

/**
 * Every adapter suite that records a golden transcript (the adapter suite's areas, organizations,
 * API keys and webhooks), each with `options`: what an adapter's own test file runs on memory
 * stores, `transcripts` on, so that every adapter answers byte for byte alike.
 */
export function runTranscriptAdapterSuites(options: AdapterSuiteOptions): void {
  runAdapterSuite(options);
  runOrganizationsAdapterSuite(options);
  runApiKeysAdapterSuite(options);
  runWebhooksAdapterSuite(options);
}
