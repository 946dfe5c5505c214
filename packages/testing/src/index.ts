export { type AdapterSuiteOptions, runAdapterSuite, type StartedServer } from "./adapter-suite.js";
export { runCooldownStoreSuite } from "./cooldown-store-suite.js";
export { runLimitsAdapterSuite } from "./limits-suite.js";
export { runSessionStoreSuite } from "./session-store-suite.js";
export type { StoreFixture, StoreSuiteOptions } from "./store-fixture.js";
export { referenceTotp, runTwoFactorAdapterSuite } from "./two-factor-suite.js";
export { runUserStoreSuite } from "./user-store-suite.js";
export { waitFor } from "./wait.js";
