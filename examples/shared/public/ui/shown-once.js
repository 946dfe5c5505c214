// A secret shown once (a new API key, a webhook signing secret): the card that shows it, and
// forgetting it.
import { $, button, element, say, show } from "./page.js";
import { t } from "./strings.js";

/**
 * Shows `value` in the box `boxId` (a card): `title`, the `warning` that it is shown only now,
 * the value in a read-only field labelled `label`, Copy and Done. `strings` is the view's prefix
 * of the words: `<strings>.copy` and `<strings>.done` (the buttons), `<strings>.copied` and
 * `<strings>.selected` (what the status line says once copied, or selected when the clipboard is
 * refused). Done (or `forgetShown`) forgets it: nothing else keeps it, so it cannot be shown again.
 */
export function showOnce(boxId, { title, warning, label, value, strings }) {
  const words = {
    copy: t(`${strings}.copy`),
    done: t(`${strings}.done`),
    copied: t(`${strings}.copied`),
    selected: t(`${strings}.selected`),
  };
  const box = $(boxId);
  const field = element("input", { id: `${boxId}-value`, readOnly: true, value, className: "key-field" });
  field.setAttribute("autocomplete", "off");
  field.setAttribute("spellcheck", "false");
  field.addEventListener("focus", () => field.select());
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(field.value);
      say(words.copied);
    } catch {
      field.focus();
      field.select();
      say(words.selected);
    }
  };
  box.replaceChildren(
    element("h2", { id: `${boxId}-title`, textContent: title }),
    element("p", { className: "key-warning", textContent: warning }),
    element("label", {}, element("span", { textContent: label }), " ", field),
    element(
      "div",
      { className: "row" },
      button(words.copy, copy, "key-copy"),
      button(words.done, () => forgetShown(boxId), "secondary key-done"),
    ),
  );
  box.setAttribute("role", "region");
  box.setAttribute("aria-labelledby", `${boxId}-title`);
  show(boxId, true);
  field.focus();
}

/** Forgets what `showOnce` shows in `boxId`. */
export function forgetShown(boxId) {
  const box = $(boxId);
  if (box.hidden && box.childElementCount === 0) return;
  box.replaceChildren();
  show(boxId, false);
}
