export { ConfigError, type ExampleConfig, readConfig } from "./config.js";
export { outboxEntryPage, outboxListPage, type Page, uiAssets } from "./pages.js";
export { qrCodePage } from "./qr.js";
export { readSeedFile, type SeedUser, seedUsers } from "./seed.js";
export { createExampleAuth, type ExampleAuth } from "./setup.js";
