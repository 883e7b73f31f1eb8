// The board's columns beyond the cards: which ones the operator hides (the
// hiddenBoardColumns setting, so the choice follows them to every device),
// and the cue that more columns lie to the side than the screen shows.
import { api, errorText, isUnauthenticated } from "../api";
import { h, replace, uid } from "../dom";
import { cardStatuses, reportUnauthenticated, toast } from "../ui";
import { termLabel } from "../vocabulary";

// loadHidden answers the hidden columns the settings hold (none when they
// cannot be read: the board then shows every column).
export async function loadHidden(): Promise<Set<string>> {
  try {
    const s = await api.settings.getSettings({});
    return new Set(s.hiddenBoardColumns);
  } catch (e) {
    if (isUnauthenticated(e)) reportUnauthenticated();
    return new Set();
  }
}

// saveHidden stores the hidden set; an empty set clears the setting.
async function saveHidden(hidden: Set<string>): Promise<void> {
  const list = cardStatuses.filter((s) => hidden.has(s));
  await api.settings.updateSettings(
    list.length ? { hiddenBoardColumns: list } : { clearFields: ["hiddenBoardColumns"] },
  );
}

// columnChooser is the toolbar's "Columns" menu: one box per column, ticked
// while the column shows. changed runs after the setting is saved.
export function columnChooser(hidden: Set<string>, changed: (status: string, shown: boolean) => void): HTMLElement {
  const problem = h("div", { class: "form-status" });
  const boxes = cardStatuses.map((status) => {
    const id = uid("col-show");
    const box = h("input", { id, type: "checkbox", name: "column", value: status, checked: !hidden.has(status) });
    box.addEventListener("change", async () => {
      const shown = box.checked;
      if (shown) hidden.delete(status);
      else hidden.add(status);
      box.disabled = true;
      replace(problem);
      try {
        await saveHidden(hidden);
        changed(status, shown);
        toast(`${termLabel("card_status", status)} ${shown ? "shown" : "hidden"}`);
      } catch (e) {
        // Put the box back as the server has it.
        box.checked = !shown;
        if (shown) hidden.add(status);
        else hidden.delete(status);
        if (isUnauthenticated(e)) reportUnauthenticated();
        replace(problem, h("p", { class: "error", role: "alert" }, errorText(e)));
      } finally {
        box.disabled = false;
      }
    });
    return h("li", null, box, h("label", { for: id }, termLabel("card_status", status)));
  });
  return h(
    "details",
    { class: "column-chooser" },
    h("summary", { class: "button secondary" }, "Columns"),
    h(
      "fieldset",
      { class: "column-chooser-panel" },
      h("legend", null, "Columns shown"),
      h("ul", null, boxes),
      problem,
    ),
  );
}

// scrollCue wraps the strip with the signs that it scrolls: a fade and a
// button at each side that has more columns past the edge. It answers the
// wrapper and an update to call when the columns change.
export function scrollCue(strip: HTMLElement): { el: HTMLElement; update: () => void; stop: () => void } {
  const step = (dir: number) => {
    const col = strip.querySelector<HTMLElement>("section.column:not([hidden])");
    const width = col ? col.getBoundingClientRect().width + 12 : strip.clientWidth * 0.8;
    strip.scrollBy({ left: dir * width, behavior: "smooth" });
  };
  const earlier = h(
    "button",
    { type: "button", class: "scroll-cue earlier", "aria-label": "Show earlier columns", onclick: () => step(-1) },
    "‹",
  );
  const later = h(
    "button",
    { type: "button", class: "scroll-cue later", "aria-label": "Show later columns", onclick: () => step(1) },
    "›",
  );
  const el = h("div", { class: "columns-wrap" }, strip, earlier, later);
  const update = () => {
    const max = strip.scrollWidth - strip.clientWidth;
    const left = strip.scrollLeft > 2;
    const right = strip.scrollLeft < max - 2;
    el.dataset.moreLeft = String(left);
    el.dataset.moreRight = String(right);
    earlier.hidden = !left;
    later.hidden = !right;
  };
  strip.addEventListener("scroll", update, { passive: true });
  const observer = new ResizeObserver(update);
  observer.observe(strip);
  update();
  return { el, update, stop: () => observer.disconnect() };
}
