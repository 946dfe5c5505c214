export { API_REFERENCE_PATH, API_REFERENCE_SCRIPT_PATH, apiReferencePages } from "./api-reference.js";
export { ConfigError, type ExampleConfig, readConfig } from "./config.js";
export { EMAIL_SIGN_IN_PATH, EMAIL_SIGN_IN_SCRIPT_PATH, emailSignInPages } from "./email-sign-in-page.js";
export {
  apiAudience,
  isOAuthAccessToken,
  oauthProjectsAnswer,
  PROJECTS_READ_SCOPE,
  projectsTokenCheck,
  takesOAuthToken,
} from "./oauth-resource.js";
export { outboxEntryPage, outboxListPage, type Page, uiAssets } from "./pages.js";
export { qrCodePage } from "./qr.js";
export { readSeedFile, type SeedUser, seedUsers } from "./seed.js";
export { createExampleAuth, type ExampleAuth } from "./setup.js";
export { KEEP_ALIVE_TIMEOUT_MS, type ListeningServer, startExample } from "./start.js";
