import { runSigningKeyStoreSuite } from "@portcullis/testing";
import { createMemorySigningKeyStore } from "./signing-key-store.js";

runSigningKeyStoreSuite({ name: "memory", create: () => ({ store: createMemorySigningKeyStore() }) });
