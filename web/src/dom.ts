// A small element builder: the dashboard builds its DOM from code, never from
// HTML strings, so server text can never become markup (and the page runs
// under a Content-Security-Policy without inline scripts or styles).

export type Child = Node | string | number | null | undefined | false | Child[];

export type Attrs = {
  [name: string]: unknown;
};

// Set as properties rather than attributes: they reflect live state.
const properties = new Set(["value", "checked", "disabled", "hidden", "selected", "indeterminate"]);

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs?: Attrs | null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [name, value] of Object.entries(attrs)) {
      if (value === undefined || value === null) continue;
      if (name.startsWith("on") && typeof value === "function") {
        el.addEventListener(name.slice(2), value as EventListener);
      } else if (properties.has(name)) {
        (el as unknown as Record<string, unknown>)[name] = value;
      } else if (value === false) {
        continue;
      } else if (value === true) {
        el.setAttribute(name, "");
      } else {
        el.setAttribute(name, String(value));
      }
    }
  }
  append(el, children);
  return el;
}

export function append(parent: Node, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(parent, c);
    else if (c instanceof Node) parent.appendChild(c);
    else parent.appendChild(document.createTextNode(String(c)));
  }
}

// A keyed select the operator changed is marked, so that a refresh keeps
// the choice (a live update arriving between choosing a card's column and
// pressing Move would otherwise put the select back).
document.addEventListener(
  "change",
  (e) => {
    if (e.target instanceof HTMLSelectElement && e.target.dataset.focusKey) e.target.dataset.chosen = "";
  },
  true,
);

// Replaces el's content, keeping keyboard focus on the control with the same
// data-focus-key when the old one is replaced by a refresh, and the choice
// the operator made in a keyed select whose redraw still offers it.
export function replace(el: Element, ...children: Child[]): void {
  const active = document.activeElement;
  const key = active instanceof HTMLElement && el.contains(active) ? active.dataset.focusKey : undefined;
  const chosen = new Map<string, string>();
  for (const s of el.querySelectorAll<HTMLSelectElement>("select[data-focus-key][data-chosen]")) chosen.set(s.dataset.focusKey!, s.value);
  el.replaceChildren();
  append(el, children);
  for (const [k, v] of chosen) {
    const s = el.querySelector<HTMLSelectElement>(`select[data-focus-key="${CSS.escape(k)}"]`);
    if (s && Array.from(s.options).some((o) => o.value === v)) {
      s.value = v;
      s.dataset.chosen = "";
    }
  }
  if (key) {
    const again = el.querySelector<HTMLElement>(`[data-focus-key="${CSS.escape(key)}"]`);
    again?.focus();
  }
}

let ids = 0;
// uid gives a unique id for label/aria wiring.
export function uid(prefix: string): string {
  ids += 1;
  return `${prefix}-${ids}`;
}
