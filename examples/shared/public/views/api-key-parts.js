// What the two API key views share (views/api-keys.js: the user's own keys; views/organization-api-keys.js:
// the active organization's): a key's line in a list with its delete button and in-page
// confirmation, the expiry choice, and the box that shows a new key once with its copy button.
import { auth } from "../ui/client.js";
import { button, cardConfirm, element, run } from "../ui/page.js";
import { dateTime, t } from "../ui/strings.js";
import "../ui/strings-api-keys.js";
import { forgetShown, showOnce } from "../ui/shown-once.js";

/** The expiry choices of the create forms, in days ("" for never); the first is the default. */
export const EXPIRY_DAYS = ["90", "30", "7", "365", ""];

/** The options of an expiry `<select>` in the page's language, `kept` selected. */
export const expiryOptions = (kept) =>
  EXPIRY_DAYS.map((days) =>
    element("option", {
      value: days,
      textContent: days ? t("keys.days", { days }) : t("keys.never"),
      selected: days === kept,
    }),
  );

/** A create form's body part for the expiry: `{ expiresInDays }`, or nothing for never. */
export const expiryOf = (value) => (value ? { expiresInDays: Number(value) } : {});

// ---- Confirmation -----------------------------------------------------------------------------
const confirm = cardConfirm("keys", "keys.yes");
/** Closes the confirmation (the focus back where it was). */
export const closeKeyConfirm = confirm.close;

// ---- A key in a list --------------------------------------------------------------------------
function keyDates(key) {
  const expired = key.expiresAt !== null && Date.parse(key.expiresAt) <= Date.now();
  return [
    t("keys.line", { start: key.start, created: dateTime(key.createdAt) }),
    key.lastUsedAt ? t("keys.used", { time: dateTime(key.lastUsedAt) }) : t("keys.neverUsed"),
    key.expiresAt === null
      ? t("keys.noExpiry")
      : t(expired ? "keys.expired" : "keys.expiresAt", { time: dateTime(key.expiresAt) }),
  ].join(" · ");
}

/**
 * A key's line: its name, start, dates and (an organization's key) permissions, and a delete
 * button named for it that asks first and then calls `remove(key)`.
 */
export function keyItem(key, remove) {
  const text = element(
    "span",
    { className: "key-text" },
    element("strong", { textContent: key.name }),
    element("span", { className: "muted key-dates", textContent: keyDates(key) }),
  );
  if (key.permissions)
    text.append(
      element(
        "span",
        { className: "org-tags" },
        ...key.permissions.map((permission) =>
          element("span", { className: "tag", textContent: permission }),
        ),
      ),
    );
  const del = button(
    t("keys.delete"),
    (event) =>
      confirm.ask(event.currentTarget, t("keys.confirmDelete", { name: key.name }), () => remove(key)),
    "danger small",
  );
  del.setAttribute("aria-label", t("keys.deleteNamed", { name: key.name }));
  return element("li", { className: "key-item" }, text, del);
}

// ---- The new key, shown once ------------------------------------------------------------------
/** Shows a new key once in the element `boxId` (`showOnce`). */
export function showNewKey(boxId, name, key) {
  showOnce(boxId, {
    title: t("keys.newTitle", { name }),
    warning: t("keys.newWarning"),
    label: t("keys.newLabel"),
    value: key,
    strings: "keys",
  });
}

/** Forgets the new key shown in `boxId`. */
export const clearNewKey = forgetShown;

// ---- Creating a key ---------------------------------------------------------------------------
/**
 * Makes the key named in `form` (`body` besides its name and expiry), `onCreated` run once it is
 * made; then empties the name field and shows the key once in the box `boxId`. Resolves to the
 * answer, or to nothing when the call failed (its error shown by `run`).
 */
export function createKeyFromForm({ form, values, submitter }, body, boxId, onCreated) {
  const name = values.name.trim();
  return run(
    async () => {
      const result = await auth.apiKeys.create({ name, ...body, ...expiryOf(values.expiresInDays) });
      onCreated();
      return result;
    },
    t("done.keyCreated", { name }),
    { form, button: submitter },
  ).then((result) => {
    if (!result) return undefined;
    form.querySelector("[name=name]").value = "";
    showNewKey(boxId, result.apiKey.name, result.key);
    return result;
  });
}
