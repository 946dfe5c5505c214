export {
  type AccessTokenAllowlistFixture,
  runAccessTokenAllowlistSuite,
} from "./access-token-allowlist-suite.js";
export { type ErasedAccount, entriesNaming, fillAndEraseAccount } from "./account-erasure.js";
export { runActivityStoreSuite } from "./activity-store-suite.js";
export { apiKeysTests, runApiKeysAdapterSuite } from "./adapter-suite/api-keys.js";
export { runApiKeysInstancesSuite } from "./adapter-suite/api-keys-instances.js";
export type { App, AppTests, Boot, SignedIn } from "./adapter-suite/fixture.js";
export { cookieHeader, cookieValue, expectCode, expectError, runAppTests } from "./adapter-suite/fixture.js";
export {
  type OAuthProviderSetup,
  type OAuthProviderSuiteOptions,
  type OAuthSuiteClient,
  runOAuthProviderAdapterSuite,
} from "./adapter-suite/oauth-provider.js";
export { REPORTS_CHECK } from "./adapter-suite/oauth-provider-fixture.js";
export {
  runScimAdapterSuite,
  type ScimSuiteOptions,
  type ScimSuiteSetup,
} from "./adapter-suite/scim.js";
export { failingWhileListed, storeScimConnection } from "./adapter-suite/scim-fixture.js";
export {
  runTrustedBrowsersAdapterSuite,
  trustedBrowsersTests,
} from "./adapter-suite/trusted-browsers.js";
export { runWebhooksAdapterSuite, webhooksTests } from "./adapter-suite/webhooks.js";
export {
  ADAPTER_SUITE_AREAS,
  type AdapterSuiteOptions,
  runAdapterSuite,
  runBackOfficeAdapterSuite,
  runCaptchaAdapterSuite,
  runCredentialsAdapterSuite,
  runDevicesAdapterSuite,
  runEmailSignInAdapterSuite,
  runOrganizationsAdapterSuite,
  runPasskeysAdapterSuite,
  runSelfServiceAdapterSuite,
  type StartedServer,
} from "./adapter-suite.js";
export { type ApiKeyBlocksSuiteOptions, runApiKeyBlocksSuite } from "./api-key-blocks.js";
export { runApiKeyStoreSuite } from "./api-key-store-suite.js";
export { type ApiKeyTimingSuiteOptions, runApiKeyTimingSuite } from "./api-key-timing-suite.js";
export { runAuditLogStoreSuite } from "./audit-log-store-suite.js";
export { CHROMIUM_ARGS, CHROMIUM_PATH } from "./chromium.js";
export { runCooldownStoreSuite } from "./cooldown-store-suite.js";
export {
  docSectionFiles,
  type ScratchTypecheckOptions,
  typecheckInScratchProject,
  workspaceBuilt,
} from "./doc-typecheck.js";
export { createFakeClock, type FakeClock, type FakeClockOptions } from "./fake-clock.js";
export {
  expectOnlyPrefixes,
  type FakeRangeServer,
  type ReceivedRangeRequest,
  sha1Hex,
  startFakeRangeServer,
} from "./fake-range-server.js";
export {
  type FakeSiteverifyServer,
  GOOD_CAPTCHA_TOKEN,
  startFakeSiteverifyServer,
} from "./fake-siteverify-server.js";
export { freePort } from "./free-port.js";
export {
  authWithAccount,
  expectAuthenticationRequired,
  expectNoteRefused,
  expectNoteServed,
  GUARD_TEST_ACCOUNT,
  type GuardedGet,
  type GuardedNotes,
  guardTestFixture,
} from "./guard-tests.js";
export { countHandlerBuilds } from "./handler-builds.js";
export {
  HOSTILE_RETURN_TO_PIECES,
  hostileReturnTos,
  RETURN_TOS_TO_ANOTHER_ORIGIN,
  seededRandom,
} from "./hostile-return-to.js";
export {
  type CallInit,
  createHttpClient,
  type ExchangeRecorder,
  type HttpClient,
  type HttpClientOptions,
  type HttpReply,
} from "./http-client.js";
export {
  type IdentityProviderSuiteOptions,
  runIdentityProviderAdapterSuite,
} from "./identity-provider-suite.js";
export { runIdentityStoreSuite } from "./identity-store-suite.js";
export { runLimitsAdapterSuite } from "./limits-suite.js";
export { closeServer, serveHandlerForTests, serverForTests } from "./listening-server.js";
export { runOAuthStoreSuite } from "./oauth-store-suite.js";
export {
  startTestOidcProvider,
  TEST_ACCOUNT_HEADER,
  type TestOidcAccount,
  type TestOidcClient,
  type TestOidcProvider,
  type TestOidcProviderOptions,
} from "./oidc-test-provider.js";
export { runOrganizationStoreSuite } from "./organization-store-suite.js";
export { runPasskeyStoreSuite } from "./passkey-store-suite.js";
export { type RequestTimingSuiteOptions, runRequestTimingSuite } from "./request-timing-suite.js";
export {
  fetchSamlPostedForm,
  type SamlPostedForm,
  startTestSamlIdp,
  type TestSamlIdp,
  type TestSamlIdpServiceProvider,
} from "./saml-test-idp.js";
export { runScimStoreSuite } from "./scim-store-suite.js";
export { runSessionStoreSuite } from "./session-store-suite.js";
export { runSigningKeyStoreSuite } from "./signing-key-store-suite.js";
export { runSingleUseTokenStoreSuite } from "./single-use-token-store-suite.js";
export {
  type AuthenticationResponse,
  type CeremonyTweaks,
  createSoftwareAuthenticator,
  type RegistrationResponse,
  type SoftwareAuthenticator,
} from "./software-authenticator.js";
export { runSsoStoreSuite } from "./sso-store-suite.js";
export type { StoreFixture, StoreSuite, StoreSuiteOptions } from "./store-fixture.js";
export { runStoreSuites, type StoreSuiteKind, type StoresFixture } from "./store-suites.js";
export {
  SAMPLE_T0,
  sampleUserRecord,
  sampleWebhookDelivery,
  sampleWebhookEndpoint,
  succeededWebhookAttempt,
} from "./store-test-records.js";
export {
  GOLDEN_TRANSCRIPTS_DIR,
  normalizeTranscript,
  type TranscriptOptions,
  useTranscript,
} from "./transcript.js";
export { runTranscriptAdapterSuites } from "./transcript-adapter-suites.js";
export { referenceTotp, runTwoFactorAdapterSuite } from "./two-factor-suite.js";
export { runUserStoreSuite } from "./user-store-suite.js";
export {
  deliveredOnceView,
  type ReceivedWebhook,
  startWebhookReceiver,
  type WebhookReceiver,
} from "./webhook-receiver.js";
export { runWebhookStoreSuite } from "./webhook-store-suite.js";
