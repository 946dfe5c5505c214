// The activity page: the account's security events in words, newest first, a page at a time.
import { auth } from "../ui/client.js";
import { $, element, run, show } from "../ui/page.js";
import { state } from "../ui/state.js";
import { dateTime, has, t } from "../ui/strings.js";

/** The entries so far and the cursor of the next (older) page; null: none loaded. */
let activity = null;
const ACTIVITY_PAGE = 10;

/** The words for an entry: the event, with its method or cause when it has one. */
function activityTitle(item) {
  const [kind] = (item.reason ?? "").split(":");
  if (item.type === "session.revoked" && has(`event.session.${kind}`)) return t(`event.session.${kind}`);
  const event = has(`event.${item.type}`) ? t(`event.${item.type}`) : item.type;
  const reason = item.reason ?? "";
  const provider = reason.startsWith("oidc:")
    ? (state.providers.find((p) => p.name === reason.slice(5))?.displayName ?? reason.slice(5))
    : null;
  const detail = provider
    ? t("reason.provider", { name: provider })
    : has(`method.${reason}`)
      ? t(`method.${reason}`)
      : has(`reason.${reason}`)
        ? t(`reason.${reason}`)
        : "";
  return detail ? t("activity.with", { event, detail }) : event;
}

function renderList() {
  const items = activity?.items ?? [];
  const unknown = t("account.unknown");
  $("activity-list").replaceChildren(
    ...items.map((item) =>
      element(
        "li",
        {},
        element("strong", { textContent: activityTitle(item) }),
        element("small", {
          className: "muted",
          textContent: t("activity.line", {
            time: dateTime(item.at),
            browser: item.browser ?? unknown,
            os: item.os ?? unknown,
            ip: item.ip ?? unknown,
          }),
        }),
      ),
    ),
  );
  show("activity-empty", activity !== null && !activity.loading && items.length === 0);
  show("activity-more", Boolean(activity?.nextCursor));
}

/** Loads the first page (`more`: the next one after what is shown). */
async function loadActivity(more = false) {
  const cursor = more && activity?.nextCursor ? activity.nextCursor : undefined;
  const page = await auth.activity({ limit: ACTIVITY_PAGE, ...(cursor ? { cursor } : {}) });
  activity = {
    items: [...(more ? (activity?.items ?? []) : []), ...page.items],
    nextCursor: page.nextCursor,
  };
  renderList();
}
$("activity-more").addEventListener("click", () => run(() => loadActivity(true), "", { refresh: false }));

export function renderActivity(view) {
  if (view !== "/activity" || !state.me) activity = null;
  else if (activity === null) {
    // Shown empty until the first page arrives; a failure leaves it so (no retry loop).
    activity = { items: [], nextCursor: null, loading: true };
    run(() => loadActivity(), "", { refresh: false });
  }
  renderList();
}
