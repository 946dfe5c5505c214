import { copyFileSync } from "node:fs";
import type { Options } from "tsup";
import { packageBuild } from "../../tsup.shared.js";

const shared = packageBuild() as Options;

// The SAML test identity provider runs its child script from next to the bundle, so the script
// ships in dist/ as it is (plain JavaScript, never bundled: it runs in its own process).
export default {
  ...shared,
  async onSuccess() {
    if (typeof shared.onSuccess === "function") await shared.onSuccess();
    copyFileSync("src/saml-test-idp-child.mjs", "dist/saml-test-idp-child.mjs");
  },
} satisfies Options;
