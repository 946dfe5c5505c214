// Sign-in by email from the sign-in form: "Email me a link or code" mails the address a link (its
// page is /sign-in/email) and a 6-digit code; the code is typed here. The request answers the same
// for any address (no account is revealed). Kept in `state.emailSignIn`, so a re-render (a language
// switch) keeps the code's field.
import { auth } from "../ui/client.js";
import {
  $,
  lastErrorCode,
  markField,
  navigate,
  onSubmit,
  render,
  run,
  say,
  show,
  validate,
} from "../ui/page.js";
import { state } from "../ui/state.js";
import { t } from "../ui/strings.js";
import { afterSignIn } from "./settings.js";
import { startSecondFactor } from "./two-factor.js";

/** Shows the code's form instead of the password's while an email sign-in is asked for. */
export function renderEmailSignIn() {
  const asked = state.emailSignIn;
  show("email-sign-in-request", !state.emailSignInOff);
  show("login", !asked);
  show("email-code", Boolean(asked));
  if (asked) $("email-code-lead").textContent = t("emailSignIn.lead", { email: asked.email });
}

const emailInput = () => $("login").querySelector("[name=email]");

$("email-sign-in-request").addEventListener("click", (event) => {
  const origin = event.currentTarget;
  const input = emailInput();
  const email = input.value.trim();
  // Only the address is needed here: the password's field may stay empty.
  if (email === "" || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) {
    say(t("error.fields"), "error");
    markField(input, t(email === "" ? "invalid.email.required" : "invalid.email.format"));
    input.focus();
    return;
  }
  const rememberMe = $("login").querySelector("[name=rememberMe]").checked;
  return run(() => auth.requestEmailSignIn(email), t("done.emailSignInSent", { email }), {
    button: origin,
    refresh: false,
  }).then((result) => {
    // 404 NOT_FOUND: this server does not offer sign-in by email (EMAIL_SIGN_IN=false).
    if (!result && lastErrorCode === "NOT_FOUND") {
      state.emailSignInOff = true;
      say(t("emailSignIn.off"), "error");
      render();
      $("login").querySelector("[name=password]").focus();
    }
    if (!result) return;
    state.emailSignIn = { email, rememberMe };
    $("login").reset();
    $("email-code").reset();
    navigate("/login", true);
    $("email-code").querySelector("[name=code]").focus();
  });
});

onSubmit("email-code", (form, { code }, submitter) => {
  if (!validate(form)) return;
  const { email, rememberMe } = state.emailSignIn;
  return run(
    () => auth.signInWithEmail({ email, code: code.trim() }, { rememberMe }),
    (result) => (result.twoFactorRequired ? "" : t("done.login")),
    { form, button: submitter, method: "email" },
  ).then((result) => {
    if (!result) {
      const input = form.querySelector("[name=code]");
      if (!input.hasAttribute("aria-invalid")) markField(input, $("status").textContent);
      input.focus();
      return;
    }
    state.emailSignIn = null;
    form.reset();
    if (result.twoFactorRequired) startSecondFactor(result);
    else afterSignIn(result);
  });
});

$("email-code-cancel").addEventListener("click", () => {
  state.emailSignIn = null;
  say("");
  navigate("/login", true);
  emailInput().focus();
});
