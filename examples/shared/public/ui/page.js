// The page shell the views share: DOM helpers, the status line, form checks and error messages,
// `run` (an API action with its outcome shown), the calls outside the client's route table, the
// router and the in-page confirmations.
import { PortcullisError } from "/portcullis-client.js";
import { auth, isApiError } from "./client.js";
import { forgetReturnTo, reauthAsked, signInToComeBack } from "./return-to.js";
import { loadMe, setStepUp, state } from "./state.js";
import { currentLanguage, has, number, t } from "./strings.js";

// ---- DOM helpers -------------------------------------------------------------------------------
export const $ = (id) => document.getElementById(id);
export const show = (id, visible) => {
  $(id).hidden = !visible;
};
export const fields = (form) => Object.fromEntries(new FormData(form).entries());
export const element = (tag, props = {}, ...children) => {
  const node = document.createElement(tag);
  Object.assign(node, props);
  node.append(...children);
  return node;
};
export const button = (text, onClick, className) => {
  const node = element("button", { type: "button", textContent: text });
  if (className) node.className = className;
  node.addEventListener("click", onClick);
  return node;
};
/** `node` named `label` for assistive technology, `focus` the key that finds it again after a redraw. */
export const named = (node, label, focus) => {
  node.setAttribute("aria-label", label);
  node.dataset.focus = focus;
  return node;
};
/** `fieldset`'s content: `legend`, then one checkbox `permission` per entry of `permissions`, those checked before kept. */
export function permissionChoices(fieldset, legend, permissions) {
  const picked = new Set([...fieldset.querySelectorAll("input:checked")].map((input) => input.value));
  fieldset.replaceChildren(
    element("legend", { textContent: legend }),
    ...permissions.map((permission) =>
      element(
        "label",
        { className: "choice" },
        element("input", {
          type: "checkbox",
          name: "permission",
          value: permission,
          checked: picked.has(permission),
        }),
        ` ${permission}`,
      ),
    ),
  );
}
/** A hidden view's `<section>` (`className` besides "view") for the route `path`, `html` its content. */
export function viewSection(id, path, html, className = "view") {
  const section = element("section", { id, className, hidden: true });
  section.dataset.view = path;
  section.innerHTML = html;
  return section;
}
/** Radio buttons, one per 2FA method, under a legend that names the group. */
export const radios = (name, methods, checked, legend) => [
  element("legend", { textContent: legend }),
  ...methods.map((method) =>
    element(
      "label",
      { className: "choice" },
      element("input", { type: "radio", name, value: method, checked: method === checked }),
      ` ${t(`method.${method}`)}`,
    ),
  ),
];

// ---- Status line -------------------------------------------------------------------------------
let countdown;
/**
 * The status line: `kind` is "ok" or "error". `#status` is a live region that stays in the page
 * (an empty one takes no room), so each message is announced once; `seconds` (a 429's wait)
 * counts down in `#status-countdown` beside it, which is not live and so is not read every second.
 */
export function say(text, kind = "ok", seconds) {
  clearInterval(countdown);
  const status = $("status");
  const clock = $("status-countdown");
  status.className = text ? kind : "";
  if (status.textContent !== text) status.textContent = text;
  clock.hidden = !seconds;
  clock.textContent = "";
  if (!seconds) return;
  let left = seconds;
  const tick = () => {
    clock.textContent =
      left > 0 ? t("error.cooldownLeft", { seconds: number(left) }) : t("error.cooldownOver");
    if (left <= 0) clearInterval(countdown);
    left -= 1;
  };
  tick();
  countdown = setInterval(tick, 1000);
}

/** Keeps a button disabled for a 429's wait, whatever the status line shows meanwhile. */
function holdButton(node, seconds) {
  node.disabled = true;
  node.dataset.cooldown = "1";
  clearTimeout(node.cooldownTimer);
  node.cooldownTimer = setTimeout(() => releaseButton(node), seconds * 1000);
}
function releaseButton(node) {
  clearTimeout(node.cooldownTimer);
  node.disabled = false;
  delete node.dataset.cooldown;
}
/** Ends every 429 wait the page holds (a password reset cleared the failed sign-ins). */
export function releaseWaits() {
  for (const node of document.querySelectorAll("[data-cooldown]")) releaseButton(node);
  if (!$("status-countdown").hidden) say("");
}

// ---- Form checks and errors --------------------------------------------------------------------
/** Marks an input invalid with a message under it. */
export const markField = (input, message) => {
  input.setAttribute("aria-invalid", "true");
  const note = element("small", { className: "field-error", textContent: message });
  note.id = `${input.form?.id ?? "form"}-${input.name}-error`;
  input.setAttribute("aria-describedby", note.id);
  input.closest("label").append(note);
};

/** Marks a fieldset of choices invalid: `message` under its legend, read with the group. */
export function markFieldset(fieldset, message) {
  const note = element("small", {
    className: "field-error",
    id: `${fieldset.id}-error`,
    textContent: message,
  });
  fieldset.querySelector("legend").after(note);
  fieldset.setAttribute("aria-describedby", note.id);
  fieldset.setAttribute("aria-invalid", "true");
}

export const clearFieldErrors = () => {
  for (const node of document.querySelectorAll(".field-error")) node.remove();
  for (const node of document.querySelectorAll("[aria-invalid]")) {
    node.removeAttribute("aria-invalid");
    node.removeAttribute("aria-describedby");
  }
};

/**
 * Checks a form before sending: every empty required field and every malformed email address at
 * once, in the page's language. False (with the fields marked) when something is missing.
 */
export function validate(form) {
  clearFieldErrors();
  let valid = true;
  for (const input of form.querySelectorAll("input[name]")) {
    const value = input.value.trim();
    const key =
      input.required && value === ""
        ? `invalid.${input.name}.required`
        : input.type === "email" && value !== "" && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value)
          ? `invalid.${input.name}.format`
          : null;
    if (!key) continue;
    markField(input, has(key) ? t(key) : t("error.fields"));
    valid = false;
  }
  if (!valid) {
    say(t("error.fields"), "error");
    form.querySelector("[aria-invalid]")?.focus();
  }
  return valid;
}

/** True when the API gave a message of its own (not just its code, not a proxy's page). */
const hasMessage = (error) =>
  error.code !== "UNEXPECTED_RESPONSE" && error.message !== "" && error.message !== error.code;

/** The words for an API error: ours for its code, else the API's localized message, never a bare code. */
export const messageOf = (error) =>
  has(`code.${error.code}`)
    ? t(`code.${error.code}`)
    : hasMessage(error)
      ? error.message
      : t("error.unexpected", { status: error.status });

/** The code of the last error shown ("" for none). */
export let lastErrorCode = "";

/** Field errors under their inputs: the API's localized message when it has one, else ours for the field. */
function showFieldErrors(error, form) {
  const loose = [];
  for (const issue of error.fields) {
    const name = issue.path.split(/[./]/).filter(Boolean).pop();
    const input = name && form?.querySelector(`[name="${CSS.escape(name)}"]`);
    const text =
      issue.message !== ""
        ? issue.message
        : name && has(`invalid.${name}`)
          ? t(`invalid.${name}`)
          : t("error.fields");
    if (input && !input.hasAttribute("aria-invalid")) markField(input, text);
    else if (!input) loose.push(text);
  }
  say(loose.length > 0 ? loose.join(" ") : t("error.fields"), "error");
}

/** A human message from an error's code (and its field errors, placed under their inputs). */
export function showError(error, form, context = {}) {
  lastErrorCode = isApiError(error) ? error.code : "";
  if (!isApiError(error)) {
    say(t("error.network"), "error");
    return;
  }
  if (error.fields.length > 0) {
    showFieldErrors(error, form);
    return;
  }
  const message = context.messages?.[error.code] ? t(context.messages[error.code]) : messageOf(error);
  if (error.code === "WRONG_TWO_FACTOR_CODE" && context.method === "totp") {
    say(`${message} ${t("error.reusedCode")}`, "error");
    return;
  }
  if (error.status === 429 && error.retryAfter) {
    if (context.button) holdButton(context.button, error.retryAfter);
    say(message, "error", error.retryAfter);
    return;
  }
  say(message, "error");
}

/** Runs an API action from a form or button: clears old errors, shows success or a human error. */
export async function run(action, done, options = {}) {
  clearFieldErrors();
  const hadUser = Boolean(state.me);
  try {
    const result = await action();
    const text = typeof done === "function" ? done(result) : done;
    if (text) say(text);
    return result;
  } catch (error) {
    // The session ended on this call: the page is signed out already and says why (app.js).
    const ended = hadUser && !state.me && isApiError(error) && error.status === 401;
    if (!ended) showError(error, options.form, options);
    if (isApiError(error) && error.code === "STEP_UP_REQUIRED") setStepUp(0);
    return undefined;
  } finally {
    const lost = options.refresh !== false && (await loadMe());
    if (lost) say(t(lost), "error");
    render();
  }
}

/** A form's submit handler: `handler(form, fields, submitter)`. */
export const onSubmit = (id, handler) =>
  $(id).addEventListener("submit", (event) => {
    event.preventDefault();
    handler(event.target, fields(event.target), event.submitter);
  });

// ---- Calls outside the client's route table ---------------------------------------------------
/** The error of a refused answer, as the client's own calls throw it (the API's code, message and fields). */
export async function apiErrorOf(response) {
  const body = await response.json().catch(() => null);
  if (typeof body?.code !== "string")
    return new PortcullisError("UNEXPECTED_RESPONSE", `HTTP ${response.status}`, { status: response.status });
  const fields = (Array.isArray(body.errors) ? body.errors : [])
    .filter((issue) => typeof issue?.path === "string")
    .map((issue) => ({ path: issue.path, message: typeof issue.message === "string" ? issue.message : "" }));
  return new PortcullisError(body.code, typeof body.message === "string" ? body.message : body.code, {
    status: response.status,
    fields,
  });
}

/**
 * `method url` with the session (the client's `fetch`: the cookies, the step-up's among them, and
 * a refresh on a 401) and a JSON `body`: the answer's JSON, or `errorOf(response)`'s error (a
 * `PortcullisError`, as `run` shows it; `NETWORK_FAILURE` when no answer came).
 */
export async function callApi(method, url, body, errorOf = apiErrorOf) {
  let response;
  try {
    response = await auth.fetch(url, {
      method,
      headers: {
        accept: "application/json",
        "accept-language": currentLanguage(),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (cause) {
    throw new PortcullisError("NETWORK_FAILURE", "No answer", { cause });
  }
  if (!response.ok) throw await errorOf(response);
  return response.json();
}

// ---- Router ------------------------------------------------------------------------------------
const SIGNED_IN_ONLY = ["/account", "/settings/security", "/activity", "/settings/account"];
const SIGNED_OUT_ONLY = ["/login", "/signup", "/login/2fa"];
/** Signed-in pages whose sign-in comes back to them (`/login?returnTo=`, ui/return-to.js). */
const COME_BACK = [];
export const isSignedInOnly = (path) => SIGNED_IN_ONLY.includes(path);
/**
 * A view module's own signed-in page (e.g. the back office's /admin); `comeBack`: a signed-out
 * visitor signs in and comes back to it, its query kept (the OAuth consent and device pages).
 */
export const addSignedInPath = (path, comeBack = false) => {
  SIGNED_IN_ONLY.push(path);
  if (comeBack) COME_BACK.push(path);
};
/** The sign-in pages a signed-in user may see while a page asked for a new sign-in (`reauth=1`). */
const REAUTH_VIEWS = ["/login", "/login/2fa"];

/** The view for the URL and the state: signed-in pages need a user, the second step a pending sign-in. */
function currentView() {
  let path = location.pathname;
  if (path === "/") path = state.me ? "/account" : "/login";
  if (path === "/login" && state.pendingLogin) path = "/login/2fa";
  if (path === "/login/2fa" && !state.pendingLogin) path = "/login";
  if (SIGNED_IN_ONLY.includes(path) && !state.me) path = "/login";
  if (SIGNED_OUT_ONLY.includes(path) && state.me && !(REAUTH_VIEWS.includes(path) && reauthAsked()))
    path = "/account";
  return path;
}

export function navigate(path, replace = false) {
  if (replace) history.replaceState(null, "", path);
  else history.pushState(null, "", path);
  render();
}

/** Each view's render function, called on every render with the current view's path. */
const renderers = [];
export const addView = (renderView) => renderers.push(renderView);

function applyStrings() {
  document.documentElement.lang = currentLanguage();
  $("language").value = currentLanguage();
  for (const node of document.querySelectorAll("[data-i18n]")) node.textContent = t(node.dataset.i18n);
}

/** The view shown last: a change moves the focus to the new view's heading. */
let shownView = null;
export function render() {
  applyStrings();
  const view = currentView();
  if (view !== "/account" || !state.me) closeConfirm();
  const comingBack = view === "/login" && COME_BACK.includes(location.pathname);
  const url = comingBack ? signInToComeBack() : view === "/login/2fa" ? "/login" : view;
  if (url !== location.pathname && location.pathname !== "/") history.replaceState(null, "", url);
  for (const section of document.querySelectorAll(".view")) section.hidden = section.dataset.view !== view;
  for (const node of document.querySelectorAll("[data-when]"))
    node.hidden = (node.dataset.when === "in") !== Boolean(state.me);
  for (const link of document.querySelectorAll("nav a[data-link]"))
    link.classList.toggle("current", link.pathname === view);
  for (const renderView of renderers) renderView(view);
  if (shownView !== null && shownView !== view) {
    const heading = document.querySelector(`.view[data-view="${view}"] h1`);
    if (heading && !heading.closest(".view").contains(document.activeElement)) {
      heading.tabIndex = -1;
      heading.focus();
    }
  }
  shownView = view;
  const heading = document.querySelector(`.view[data-view="${view}"] h1`)?.textContent.trim();
  document.title = heading ? t("title.page", { view: heading }) : t("title.app");
}

document.addEventListener("click", (event) => {
  const link = event.target.closest?.("a[data-link]");
  if (!link || event.ctrlKey || event.metaKey || event.shiftKey) return;
  event.preventDefault();
  if (link.pathname === location.pathname && !location.search) return;
  say("");
  // Going elsewhere in the app leaves a sign-in that a page asked for: it does not go back there.
  forgetReturnTo();
  navigate(link.pathname);
});
window.addEventListener("popstate", render);

// ---- Confirmations -----------------------------------------------------------------------------
/** The focus before a confirmation opened, given back when it closes. */
let confirmReturn = null;
export function closeConfirm() {
  const box = $("confirm");
  if (box.hidden) return;
  box.hidden = true;
  box.replaceChildren();
  if (confirmReturn?.isConnected) confirmReturn.focus();
  confirmReturn = null;
}
/** Asks in the page (not window.confirm) before an action that signs sessions out. */
export function askFirst(question, yes, action) {
  confirmReturn = document.activeElement;
  const box = $("confirm");
  box.replaceChildren(
    element("p", { id: "confirm-question", textContent: question }),
    element(
      "div",
      { className: "row" },
      button(
        yes,
        () => {
          confirmReturn = null;
          closeConfirm();
          action();
        },
        "danger confirm-yes",
      ),
      button(t("confirm.cancel"), closeConfirm, "secondary confirm-cancel"),
    ),
  );
  box.hidden = false;
  box.querySelector(".confirm-cancel").focus();
}
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape") closeConfirm();
});

/**
 * An in-page confirmation shown in the card of the button that asked (ids and classes under
 * `prefix`, its yes button labelled `t(yesKey)`), the focus given back on close; Escape closes it.
 */
export function cardConfirm(prefix, yesKey) {
  const box = element("div", { id: `${prefix}-confirm`, className: "confirm", hidden: true });
  box.setAttribute("role", "alertdialog");
  box.setAttribute("aria-labelledby", `${prefix}-confirm-question`);
  let returnTo = null;
  const close = () => {
    if (box.hidden) return;
    box.hidden = true;
    box.replaceChildren();
    if (returnTo?.isConnected) returnTo.focus();
    returnTo = null;
  };
  const ask = (origin, question, action) => {
    returnTo = origin;
    const yes = () => {
      returnTo = null;
      close();
      action();
    };
    box.replaceChildren(
      element("p", { id: `${prefix}-confirm-question`, textContent: question }),
      element(
        "div",
        { className: "row" },
        button(t(yesKey), yes, "danger"),
        button(t("confirm.cancel"), close, `secondary ${prefix}-confirm-cancel`),
      ),
    );
    origin.closest(".card").append(box);
    box.hidden = false;
    box.querySelector(`.${prefix}-confirm-cancel`).focus();
  };
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape") close();
  });
  return { ask, close };
}
