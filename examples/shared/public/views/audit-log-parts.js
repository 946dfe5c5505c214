// What the two audit log pages share (views/audit-log.js): the calls of the audit routes, the
// filters as a query, the export links, and the table of entries (time in the page's language, a
// readable event, who acted, whom it concerned, IP and browser). The webhooks page's deliveries
// (views/webhook-parts.js) are a table of the same make.
import { callApi, element } from "../ui/page.js";
import { currentLanguage, has, STRINGS, t } from "../ui/strings.js";
import "../ui/strings-audit-log.js";

/** The auth routes' mount (ui/client.js's `baseUrl`). */
const BASE = "/api/auth";
/** Entries per page ("load more" asks for the next one). */
export const PAGE_SIZE = 20;

/** The URL of an audit route (`path` under the mount) with the non-empty entries of `query`. */
export function auditUrl(path, query = {}) {
  const search = new URLSearchParams(
    Object.entries(query).filter(([, value]) => value != null && value !== ""),
  );
  const text = search.toString();
  return `${BASE}${path}${text ? `?${text}` : ""}`;
}

/**
 * `GET` of an audit route as the signed-in user (`callApi`: the session's cookies, a refresh on a
 * 401): its JSON, or the API's error (a `PortcullisError`, as `run` shows it).
 */
export const auditGet = (path, query) => callApi("GET", auditUrl(path, query));

/** A day of a date field (`YYYY-MM-DD`, the viewer's time zone) as the instant it starts, ISO 8601; `days` later when given. */
export function dayStart(day, days = 0) {
  const [year, month, date] = day.split("-").map(Number);
  return new Date(year, month - 1, date + days).toISOString();
}

/**
 * The query of the filter form's values: `type`, `actor` (an id), `from` (the first day's start),
 * `to` (the end of the last day: the route's `to` is exclusive), and `organizationId` when given.
 */
export function filterQuery({ type, actorId, from, to, organizationId }) {
  return {
    type: type || undefined,
    actor: actorId || undefined,
    from: from ? dayStart(from) : undefined,
    to: to ? dayStart(to, 1) : undefined,
    organizationId: organizationId || undefined,
  };
}

/** The readable name of an event type (the audit log's words, else the activity page's), else the type itself. */
export const eventLabel = (type) =>
  has(`audit.event.${type}`) ? t(`audit.event.${type}`) : has(`event.${type}`) ? t(`event.${type}`) : type;

/** The event types the page has words for (the type filter's choices), by their words. */
export function knownTypes(seen = []) {
  const prefix = "audit.event.";
  const mine = Object.keys(STRINGS.en).filter((key) => key.startsWith(prefix));
  const types = new Set([...mine.map((key) => key.slice(prefix.length)), ...seen]);
  return [...types].sort((a, b) => eventLabel(a).localeCompare(eventLabel(b), currentLanguage()));
}

/** The browser and system of a User-Agent, in words ("Chrome on Linux"); the raw text, shortened, when unknown. */
export function browserOf(userAgent) {
  if (!userAgent) return t("audit.blank");
  const find = (pairs) => pairs.find(([token]) => userAgent.includes(token))?.[1];
  const browser = find([
    ["Edg/", "Edge"],
    ["OPR/", "Opera"],
    ["Firefox/", "Firefox"],
    ["Chrome/", "Chrome"],
    ["Safari/", "Safari"],
  ]);
  const os = find([
    ["Windows", "Windows"],
    ["Android", "Android"],
    ["iPhone", "iOS"],
    ["iPad", "iOS"],
    ["CrOS", "ChromeOS"],
    ["Mac OS X", "macOS"],
    ["Linux", "Linux"],
  ]);
  if (browser && os) return t("audit.browserOn", { browser, os });
  if (browser) return browser;
  return userAgent.length > 48 ? `${userAgent.slice(0, 47)}…` : userAgent;
}

/** An instant (an entry's, a delivery's) to the second, in the page's language and the viewer's time zone. */
export const timeOf = (iso) =>
  new Intl.DateTimeFormat(currentLanguage(), { dateStyle: "medium", timeStyle: "medium" }).format(
    new Date(iso),
  );

/** Who acted, in words; `nameOf(id)` gives a user's address when the page knows it. */
export function actorOf(entry, nameOf) {
  const who = entry.actorId ? nameOf(entry.actorId) : t("audit.blank");
  if (entry.actorType === "host")
    return entry.actorId ? t("audit.by.hostNamed", { who }) : t("audit.by.host");
  if (entry.actorType === "user" && !entry.actorId) return t("audit.blank");
  return has(`audit.by.${entry.actorType}`) ? t(`audit.by.${entry.actorType}`, { who }) : who;
}

/** A cell with its column's name `label` (shown beside the value when the table is stacked on a phone). */
export const tableCell = (label, ...children) => {
  // One box for the value, so the stacked cell is two columns: the name, the value.
  const node = element("td", {}, element("div", {}, ...children));
  node.dataset.label = label;
  node.setAttribute("role", "cell");
  return node;
};

/** The columns of a table: `organization` adds the organization's column (the deployment's log). */
export const columns = (organization) => [
  "time",
  "event",
  "actor",
  "target",
  ...(organization ? ["organization"] : []),
  "ip",
  "browser",
];

/** The header row of a table of the columns `names`, each named by the words `<words>.<name>`. */
export const headerRow = (names, words) => {
  const row = element(
    "tr",
    {},
    ...names.map((name) => {
      const th = element("th", { scope: "col", textContent: t(`${words}.${name}`) });
      th.setAttribute("role", "columnheader");
      return th;
    }),
  );
  row.setAttribute("role", "row");
  return row;
};

/** One entry as a row of `names` columns, `data-id` its id (and `data-seq` its `seq`, when the log shows it). */
export function entryRow(entry, names, nameOf) {
  const blank = t("audit.blank");
  const event = [element("span", { className: "audit-event", textContent: eventLabel(entry.type) })];
  if (eventLabel(entry.type) !== entry.type)
    event.push(element("small", { className: "audit-type", textContent: entry.type }));
  if (entry.reason)
    event.push(element("small", { textContent: t("audit.reason", { reason: entry.reason }) }));
  const browser = element("span", { textContent: browserOf(entry.userAgent) });
  if (entry.userAgent) browser.title = entry.userAgent;
  const values = {
    time: [element("time", { dateTime: entry.at, textContent: timeOf(entry.at) })],
    event,
    actor: [actorOf(entry, nameOf)],
    target: [entry.userId ? nameOf(entry.userId) : blank],
    organization: [entry.organizationId ?? blank],
    ip: [entry.ip ?? blank],
    browser: [browser],
  };
  const row = element("tr", {}, ...names.map((name) => tableCell(t(`audit.col.${name}`), ...values[name])));
  row.setAttribute("role", "row");
  row.dataset.id = entry.id;
  // The deployment's log (the back office) has each entry's place in its chain; an organization's does not.
  if (entry.seq !== undefined) row.dataset.seq = String(entry.seq);
  return row;
}
