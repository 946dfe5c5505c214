// The OAuth provider's device page (/device, RFC 8628's verification URI): the user enters the
// code a device (a TV, a command line) shows, prefilled from `?userCode=` (the device's complete
// URI, then looked up at once). The page looks it up (`GET <prefix>/oauth2/device?userCode=`),
// shows the app and what it asks for, and Approve or Deny answers it (`POST <prefix>/oauth2/device/verify`);
// the device's next poll gets its tokens or the refusal. A signed-out visitor signs in first and
// comes back here (ui/return-to.js). The page's markup is made here.
import {
  $,
  addSignedInPath,
  markField,
  onSubmit,
  render,
  say,
  show,
  validate,
  viewSection,
} from "../ui/page.js";
import { state } from "../ui/state.js";
import { t } from "../ui/strings.js";
import { oauthCall, scopeItems } from "./oauth-parts.js";

const VIEW = "/device";
addSignedInPath(VIEW, true);

const section = viewSection(
  "device",
  VIEW,
  `
  <div class="card">
    <h1 data-i18n="device.title">Connect a device</h1>
    <form id="device-lookup" novalidate>
      <p class="muted" data-i18n="device.lead">Enter the code your device shows you.</p>
      <label><span data-i18n="device.code">Code</span> <input name="userCode" autocomplete="off" autocapitalize="characters" spellcheck="false" required></label>
      <button type="submit" data-i18n="device.continue">Continue</button>
    </form>
    <p id="device-done" class="lead" hidden></p>
    <button type="button" id="device-another" class="secondary" data-i18n="device.another" hidden>Enter another code</button>
  </div>
  <div id="device-request" class="card" hidden>
    <h2 id="device-lead" class="oauth-origin"></h2>
    <ul id="device-scopes" class="scopes"></ul>
    <p class="muted" data-i18n="device.warning"></p>
    <div class="row">
      <button type="button" id="device-approve" data-i18n="device.approve">Approve</button>
      <button type="button" id="device-deny" class="secondary" data-i18n="device.deny">Deny</button>
    </div>
  </div>`,
);
document.querySelector("main footer").before(section);

/** The code looked up and what it asks for (`{ userCode, client, scopes }`), and the answer given (`{ approved, name }`). */
const device = { request: null, done: null, busy: false, prefilled: false };
const form = $("device-lookup");
const codeInput = form.querySelector("[name=userCode]");

/** The words for a refused look-up or answer: an unknown or spent code, too many tries, no answer. */
function refusal(error) {
  if (error.status === 0) return t("error.network");
  if (error.status === 429) return t("device.tooMany");
  return t("device.unknown");
}

async function lookUp(userCode, submitter) {
  if (device.busy) return;
  device.busy = true;
  if (submitter) submitter.disabled = true;
  try {
    const found = await oauthCall("GET", `/oauth2/device?userCode=${encodeURIComponent(userCode)}`);
    device.request = { userCode, client: found.client, scopes: found.scopes };
    say("");
  } catch (error) {
    device.request = null;
    if (error.status !== 401) {
      say(refusal(error), "error");
      markField(codeInput, refusal(error));
      codeInput.focus();
    }
  } finally {
    device.busy = false;
    if (submitter) submitter.disabled = false;
  }
  render();
  if (device.request) $("device-approve").focus();
}

async function answer(approve) {
  const { request } = device;
  if (!request || device.busy) return;
  device.busy = true;
  for (const id of ["device-approve", "device-deny"]) $(id).disabled = true;
  try {
    await oauthCall("POST", "/oauth2/device/verify", { userCode: request.userCode, approve });
    device.done = { approved: approve, name: request.client.name };
    device.request = null;
    form.reset();
    say(t(approve ? "device.approved" : "device.denied", { client: request.client.name }));
  } catch (error) {
    if (error.status !== 401) say(refusal(error), "error");
    if (error.status === 400) device.request = null;
  } finally {
    device.busy = false;
    for (const id of ["device-approve", "device-deny"]) $(id).disabled = false;
  }
  render();
  if (device.done) $("device-another").focus();
}

export function renderDevice(view) {
  if (view !== VIEW || !state.me) {
    if (!state.me) Object.assign(device, { request: null, done: null });
    return;
  }
  // The device's complete URI carries the code: filled in and looked up once, on arrival.
  const given = new URLSearchParams(location.search).get("userCode");
  if (given && !device.prefilled) {
    device.prefilled = true;
    codeInput.value = given;
    void lookUp(given.trim());
  }
  const { request, done } = device;
  show("device-lookup", done === null);
  show("device-done", done !== null);
  show("device-another", done !== null);
  if (done)
    $("device-done").textContent = t(done.approved ? "device.approved" : "device.denied", {
      client: done.name,
    });
  show("device-request", request !== null && done === null);
  if (request === null) return;
  $("device-lead").textContent = t("device.lead2", { client: request.client.name });
  $("device-scopes").replaceChildren(...scopeItems(request.scopes));
}

onSubmit("device-lookup", (target, { userCode }, submitter) => {
  if (!validate(target)) return;
  device.request = null;
  return lookUp(userCode.trim(), submitter);
});
codeInput.addEventListener("input", () => {
  // A changed code is a new look-up: the app shown belongs to the old one.
  if (device.request && codeInput.value.trim() !== device.request.userCode) {
    device.request = null;
    render();
  }
});
$("device-approve").addEventListener("click", () => answer(true));
$("device-deny").addEventListener("click", () => answer(false));
$("device-another").addEventListener("click", () => {
  device.done = null;
  say("");
  // The address bar's code is spent: a reload shows the empty form.
  history.replaceState(null, "", VIEW);
  render();
  codeInput.focus();
});
