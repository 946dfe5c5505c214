// The browsers trusted to skip the second step (ticked "trust this browser"), on the security
// page: each with its browser, OS, since and last use, and "Forget" for one or all. Listed when
// the page opens and after each change; it needs no step-up (forgetting only takes trust away).
import "../ui/strings-trusted-browsers.js";
import { auth } from "../ui/client.js";
import { $, button, element, run, show } from "../ui/page.js";
import { state } from "../ui/state.js";
import { dateTime, t } from "../ui/strings.js";

const VIEW = "/settings/security";

/** The list as last read (null: not read yet for this visit). */
let browsers = null;
/** The view of the previous render: the list is read again each time the page is opened. */
let lastView = null;

async function load() {
  await auth.touch();
  const answer = await auth.request("GET /2fa/trusted-browsers", {}).catch(() => ({ browsers: [] }));
  browsers = answer.browsers;
  draw();
}

/** Forgets one browser (`id`) or all of them, then reads the list again. */
const forget = (id, done) =>
  run(
    () =>
      id === undefined
        ? auth.request("DELETE /2fa/trusted-browsers", {})
        : auth.request("DELETE /2fa/trusted-browsers/:id", { params: { id } }),
    done,
  ).then(load);

function item(browser) {
  const unknown = t("account.unknown");
  const line = t("trusted.line", { browser: browser.browser ?? unknown, os: browser.os ?? unknown });
  const forgetOne = button(
    t("trusted.forget"),
    () => forget(browser.id, t("done.forgotBrowser")),
    "danger small",
  );
  forgetOne.setAttribute("aria-label", t("trusted.forgetNamed", { browser: line }));
  const times = t("trusted.times", {
    since: dateTime(browser.createdAt),
    used: dateTime(browser.lastUsedAt),
  });
  return element(
    "li",
    {},
    element(
      "div",
      {},
      element("strong", { textContent: line }),
      browser.current ? element("span", { className: "badge", textContent: t("account.thisDevice") }) : "",
      element("br"),
      element("small", { className: "muted", textContent: times }),
    ),
    forgetOne,
  );
}

function draw() {
  const list = browsers ?? [];
  $("trusted-browsers").replaceChildren(
    ...(list.length === 0
      ? [element("li", { className: "muted", textContent: t("trusted.none") })]
      : list.map(item)),
  );
  show("forget-all-browsers", list.length > 0);
}

/** On the security page, signed in: the list, read when the page opens. */
export function renderTrustedBrowsers(view) {
  const here = view === VIEW && Boolean(state.me);
  show("trusted-card", here);
  if (here && lastView !== VIEW) void load();
  else if (here) draw();
  if (!here) browsers = null;
  lastView = here ? VIEW : view;
}

$("forget-all-browsers").addEventListener("click", () => forget(undefined, t("done.forgotBrowsers")));
