// The account settings (`/settings/account`): change the password; and after a step-up (the
// security page's own step-up box, shown on this page while it is open) change the address,
// download the account's data, delete the account. Also the page an address-change link opens
// (`/confirm-email-change?token=`), which confirms only from its button (a POST: a mail scanner
// that opens the link changes nothing), and the notice after a sign-in whose password is in a
// known data breach (`passwordBreached: true`), which leads to the change-password form.
import { auth, isApiError } from "../ui/client.js";
import {
  $,
  element,
  lastErrorCode,
  markField,
  messageOf,
  navigate,
  onSubmit,
  render,
  run,
  show,
  validate,
} from "../ui/page.js";
import { goBack } from "../ui/return-to.js";
import { loadMe, state } from "../ui/state.js";
import { t } from "../ui/strings.js";
import { renderStepUp } from "./security.js";

const VIEW = "/settings/account";
const CONFIRM_VIEW = "/confirm-email-change";
/** Set (for this tab) after a sign-in with a breached password, until the password is changed. */
const BREACHED_KEY = "portcullis-password-breached";

/**
 * Where a completed sign-in goes: the account, or these settings with the breached-password
 * notice when the sign-in's answer says `passwordBreached: true`.
 */
export function landingAfterSignIn(result) {
  if (!result?.passwordBreached) return "/account";
  sessionStorage.setItem(BREACHED_KEY, "1");
  return VIEW;
}

/**
 * After a completed sign-in: back to the page that asked for it (the OAuth provider's
 * authorization, its consent or device page: ui/return-to.js), else `landingAfterSignIn`'s page.
 * A breached password's notice still waits on these settings.
 */
export function afterSignIn(result) {
  const landing = landingAfterSignIn(result);
  if (!goBack()) navigate(landing, true);
}

// ---- The step-up ------------------------------------------------------------------------------
/** The security page's step-up box (views/security.js wires its forms), shown here while this page is. */
const stepUpBox = $("step-up-box");

/** Whether the last render of this page found the step-up open (the address, the export and the deletion shown). */
let wasConfirmed = false;

// ---- Render -----------------------------------------------------------------------------------
/** What the address-change page says: a string key, its values and "ok" or "error". */
let confirmResult = null;

function closeDeleteConfirm(returnFocus = false) {
  if ($("delete-confirm").hidden) return;
  show("delete-confirm", false);
  if (returnFocus) $("delete-account").focus();
}

function renderConfirmPage() {
  const token = new URLSearchParams(location.search).get("token");
  const result = $("email-change-result");
  const shown = confirmResult ?? (token ? { key: "emailChange.lead" } : { key: "emailChange.noToken" });
  result.textContent = t(shown.key, shown.vars);
  result.className = shown.kind ?? "";
  show("email-change-confirm", Boolean(token) && confirmResult?.kind !== "ok");
}

export function renderSettings(view) {
  if (view === CONFIRM_VIEW) renderConfirmPage();
  const { me } = state;
  if (view !== VIEW || !me) {
    closeDeleteConfirm();
    wasConfirmed = false;
    if (!me) sessionStorage.removeItem(BREACHED_KEY);
    return;
  }
  // The box follows the step-up: shown until it is used, and again once it ran out (here or elsewhere).
  const confirmed = renderStepUp("account-step-up");
  show("breached-notice", sessionStorage.getItem(BREACHED_KEY) === "1");
  show("password-change", me.hasPassword !== false);
  show("password-none", me.hasPassword === false);
  $("email-change-current").textContent = t("settings.emailCurrent", { email: me.email });
  show("account-changes", confirmed);
  if (!confirmed) closeDeleteConfirm();
  // Just confirmed from the box (which is hidden now): the focus goes on to what it opened.
  if (
    confirmed &&
    !wasConfirmed &&
    (document.activeElement === document.body || stepUpBox.contains(document.activeElement))
  )
    $("email-change").querySelector("[name=newEmail]").focus();
  wasConfirmed = confirmed;
}

// ---- The breached-password notice and the password --------------------------------------------
$("breached-change").addEventListener("click", () => {
  const input = $("password-change").querySelector("[name=currentPassword]");
  input.scrollIntoView({ block: "center" });
  input.focus();
});

onSubmit("password-change", (form, body, submitter) => {
  if (!validate(form)) return;
  return run(() => auth.account.changePassword(body), t("done.passwordChanged"), {
    form,
    button: submitter,
    // A wrong current password is not a failed sign-in: no "email or password" in the message.
    messages: { INVALID_CREDENTIALS: "settings.wrongCurrent" },
  }).then((result) => {
    if (result) {
      form.reset();
      sessionStorage.removeItem(BREACHED_KEY);
      show("breached-notice", false);
      return;
    }
    if (lastErrorCode === "INVALID_CREDENTIALS") {
      const input = form.querySelector("[name=currentPassword]");
      markField(input, t("settings.wrongCurrent"));
      input.focus();
    } else form.querySelector("[aria-invalid]")?.focus();
  });
});

// ---- The address ------------------------------------------------------------------------------
onSubmit("email-change", (form, { newEmail }, submitter) => {
  if (!validate(form)) return;
  const email = newEmail.trim();
  return run(
    () => auth.account.requestEmailChange({ newEmail: email }),
    t("done.emailChangeSent", { email }),
    { form, button: submitter },
  ).then((result) => {
    if (result) form.reset();
  });
});

/** `/confirm-email-change?token=`: the button moves the account to the new address (a POST). */
$("email-change-confirm").addEventListener("click", async (event) => {
  const origin = event.currentTarget;
  const token = new URLSearchParams(location.search).get("token");
  if (!token) return;
  origin.disabled = true;
  try {
    const user = await auth.account.confirmEmailChange(token);
    confirmResult = { key: "emailChange.done", vars: { email: user.email }, kind: "ok" };
    // The link is spent: the token leaves the address bar (and the history).
    history.replaceState(null, "", CONFIRM_VIEW);
    await loadMe();
  } catch (error) {
    confirmResult = {
      key: isApiError(error) ? "emailChange.failed" : "error.network",
      vars: { message: isApiError(error) ? messageOf(error) : "" },
      kind: "error",
    };
  } finally {
    origin.disabled = false;
  }
  render();
  // The button is gone once the address changed: the focus goes on to "Continue".
  if (confirmResult.kind === "ok") $("confirm-email-change").querySelector("a.button").focus();
});

// ---- The data ---------------------------------------------------------------------------------
$("export-data").addEventListener("click", (event) =>
  run(
    async () => {
      const data = await auth.account.export();
      const link = element("a", {
        href: URL.createObjectURL(
          new Blob([`${JSON.stringify(data, null, 2)}\n`], { type: "application/json" }),
        ),
        download: `account-data-${location.hostname}-${data.exportedAt.slice(0, 10)}.json`,
      });
      link.click();
      URL.revokeObjectURL(link.href);
      return data;
    },
    t("done.exported"),
    { button: event.currentTarget },
  ),
);

// ---- Deleting the account ---------------------------------------------------------------------
$("delete-account").addEventListener("click", () => {
  show("delete-confirm", true);
  $("delete-cancel").focus();
});
$("delete-cancel").addEventListener("click", () => closeDeleteConfirm(true));
$("delete-confirm").addEventListener("keydown", (event) => {
  if (event.key === "Escape") closeDeleteConfirm(true);
});
$("delete-yes").addEventListener("click", () => {
  show("delete-confirm", false);
  // Signed out on purpose: no "signed out elsewhere" notice for it.
  state.signingOut = true;
  return run(() => auth.account.delete(), t("done.accountDeleted"))
    .then((result) => {
      if (result) navigate("/login", true);
      else $("delete-account").focus();
    })
    .finally(() => {
      state.signingOut = false;
    });
});
