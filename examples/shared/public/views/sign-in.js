// Signing up and in: the sign-in form (and identity providers; passkeys are in views/passkeys.js),
// the sign-up form, the forgotten password and its reset, and the emailed verification link.
import "../ui/strings-oauth.js";
import { auth, isApiError } from "../ui/client.js";
import {
  $,
  element,
  messageOf,
  navigate,
  onSubmit,
  releaseWaits,
  run,
  say,
  show,
  validate,
} from "../ui/page.js";
import { pendingReturnTo, reauthAsked } from "../ui/return-to.js";
import { state } from "../ui/state.js";
import { t } from "../ui/strings.js";
import { renderEmailSignIn } from "./email-sign-in.js";
import { afterSignIn } from "./settings.js";
import { startSecondFactor } from "./two-factor.js";

const token = new URLSearchParams(location.search).get("token");
/** Set in localStorage by a password reset: the other tabs end their failed sign-ins' wait too. */
export const WAITS_CLEARED_KEY = "portcullis-waits-cleared";

/**
 * Sign-in and step-up at a provider are browser navigations: it redirects back to the callback,
 * which sends the browser to `returnTo` (a sign-in that should go back to a page: /login, which
 * goes on there, ui/return-to.js).
 */
export const authorizeUrl = (name, stepUp = false, returnTo = "/") =>
  auth.authorizeUrl(name, { returnTo, stepUp });

/** Above the sign-in form: why it shows (a page waits for the sign-in, or asked for a new one). */
const loginNote = element("p", { id: "login-note", className: "muted", hidden: true });
$("login").querySelector("h1").after(loginNote);

export function renderSignIn(view) {
  if (view === "/verify-email") renderVerifyResult();
  renderEmailSignIn();
  const comingBack = pendingReturnTo() !== null;
  // A new sign-in while signed in (`reauth=1`): at an identity provider it would be a step-up,
  // which starts no new session, so only the ways that do are offered.
  const again = comingBack && reauthAsked();
  loginNote.textContent = comingBack ? t(again ? "login.again" : "login.toContinue") : "";
  loginNote.hidden = !comingBack;
  $("provider-buttons").replaceChildren(
    ...state.providers.map((provider) =>
      element("a", {
        className: "button",
        href: authorizeUrl(provider.name, false, comingBack ? "/login?resume=1" : "/"),
        textContent: t("login.providerButton", { name: provider.displayName }),
      }),
    ),
  );
  show("providers", state.providers.length > 0 && !again);
}

onSubmit(
  "signup",
  (form, { email, password, name }) =>
    validate(form) &&
    run(() => auth.register({ email, password, ...(name ? { name } : {}) }), t("done.signup"), {
      form,
    }).then((result) => {
      if (result) form.reset();
    }),
);

onSubmit(
  "login",
  (form, { rememberMe, ...body }, submitter) =>
    validate(form) &&
    run(
      // An unticked "Keep me signed in": the session's cookies end when the browser closes. The
      // choice rides along in the 2FA token when a second factor follows.
      () => auth.login({ ...body, rememberMe: rememberMe === "on" }),
      (result) => (result.twoFactorRequired ? "" : t("done.login")),
      { form, button: submitter ?? form.querySelector("button[type=submit]") },
    ).then((result) => {
      if (!result) return;
      form.reset();
      if (result.twoFactorRequired) startSecondFactor(result);
      else afterSignIn(result);
    }),
);

onSubmit(
  "forgot-password",
  (form, body, submitter) =>
    validate(form) &&
    run(() => auth.passwordReset.request(body), t("done.resetRequested"), {
      form,
      button: submitter,
      refresh: false,
    }),
);

onSubmit("reset-password", (form, body) => {
  if (!token) {
    say(t("reset.noToken"), "error");
    return;
  }
  if (!validate(form)) return;
  state.signingOut = true;
  return run(() => auth.passwordReset.confirm(token, body), t("done.reset"), { form })
    .then((result) => {
      if (!result) return;
      form.reset();
      // The reset ended the failed sign-ins' wait: so does the page (its held button and countdown).
      releaseWaits();
      localStorage.setItem(WAITS_CLEARED_KEY, String(Date.now()));
      say(t("done.reset"));
      navigate("/login", true);
    })
    .finally(() => {
      state.signingOut = false;
    });
});

/** `/verify-email?token=`: verifies the address of the emailed link (once; again is not a failure). */
export async function verifyFromLink() {
  if (!token) {
    state.verifyResult = { key: "verify.noToken", kind: "error" };
    return;
  }
  try {
    await auth.verification.verify(token);
    state.verifyResult = { key: "verify.done", kind: "ok" };
  } catch (error) {
    // 304 EMAIL_ALREADY_VERIFIED: the link was used before; that is not a failure.
    state.verifyResult =
      isApiError(error) && error.code === "EMAIL_ALREADY_VERIFIED"
        ? { key: "verify.already", kind: "ok" }
        : isApiError(error)
          ? { error, kind: "error" }
          : { key: "error.network", kind: "error" };
  }
}

/** The verification page shows what `state.verifyResult` holds, in the page's language, on every render. */
function renderVerifyResult() {
  const shown =
    state.verifyResult ?? (token ? { key: "verify.checking" } : { key: "verify.noToken", kind: "error" });
  const result = $("verify-result");
  result.textContent = shown.error ? messageOf(shown.error) : t(shown.key);
  result.className = shown.kind ?? "";
}
