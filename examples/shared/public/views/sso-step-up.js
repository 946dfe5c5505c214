// The step-up box's "Confirm with single sign-on" (docs/sso.md): an account that signs in through
// an organization's connection has no password or passkey of its own, so it confirms a change by
// logging in at its identity provider again. `POST /sso/step-up` answers the provider's URL (a
// fresh login asked for); the provider comes back to this page with `?stepUp=1` (or
// `?twoFactor=step-up` with 2FA on), which app.js takes as the social providers' step-up.
import { button, run } from "../ui/page.js";
import { t } from "../ui/strings.js";
import "../ui/strings-sso.js";

/**
 * True when the account signs in through single sign-on and has no password: `GET /me` lists its
 * connections among its identity providers as `sso:<connectionId>`.
 */
export const signsInWithSso = (me) =>
  !me.hasPassword && (me.identityProviders ?? []).some((name) => name.startsWith("sso:"));

/**
 * Starts the step-up at the identity provider, coming back to the page now shown. The SSO calls
 * are loaded on the click: imported here they would load the organization pages' modules early
 * (security.js is among the first), and change the order their links and sections are added in.
 */
function confirmWithSso(event) {
  const returnTo = location.pathname;
  const call = async () => {
    const { ssoCall } = await import("./sso-parts.js");
    return ssoCall("POST", "/sso/step-up", { returnTo });
  };
  return run(call, t("sso.stepUpGoing"), {
    button: event.currentTarget,
    refresh: false,
  }).then((result) => {
    if (result) location.assign(result.url);
  });
}

/** The box's button that confirms with single sign-on. */
export const ssoStepUpButton = () => button(t("security.confirmWithSso"), confirmWithSso);
