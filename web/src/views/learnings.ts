// Learnings in the Assistant view (LearningService, BehaviorSignalService in
// proto/switchboard/v1/learnings.proto): the active learnings, each
// dismissed or edited in place, a button that runs the analysis, and the
// last 30 days' signals by hour and by day as inline SVG bars.
import { api, errorText, isUnauthenticated } from "../api";
import { h, replace } from "../dom";
import type { Learning } from "../gen/switchboard/v1/learnings_pb";
import { termLabel } from "../vocabulary";
import { Region, emptyState, reportUnauthenticated, toast } from "../ui";

const svgNS = "http://www.w3.org/2000/svg";

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, ...children: SVGElement[]): SVGElementTagNameMap[K] {
  const el = document.createElementNS(svgNS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  el.append(...children);
  return el;
}

// bars draws counts as a bar chart with a label under each bar.
export function bars(title: string, counts: number[], labels: string[]): SVGSVGElement {
  const w = 14, gap = 3, top = 70, height = top + 16;
  const max = Math.max(1, ...counts);
  const chart = svg("svg", { class: "signal-chart", role: "img", "aria-label": title, viewBox: `0 0 ${counts.length * (w + gap)} ${height}`, width: "100%", height });
  chart.append(svg("title", {}));
  chart.querySelector("title")!.textContent = `${title}: ${counts.join(", ")}`;
  counts.forEach((n, i) => {
    const bh = Math.round((n / max) * (top - 4));
    const bar = svg("rect", { class: "signal-bar", x: i * (w + gap), y: top - bh, width: w, height: Math.max(bh, n > 0 ? 1 : 0), "data-count": n });
    bar.append(svg("title", {}));
    bar.querySelector("title")!.textContent = `${labels[i]}: ${n}`;
    const text = svg("text", { x: i * (w + gap) + w / 2, y: height - 3, "text-anchor": "middle", "font-size": 8 });
    text.textContent = labels[i];
    chart.append(bar, text);
  });
  return chart;
}

const dayNames = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

function chartPanel(): { el: HTMLElement; reload: () => void } {
  const region = new Region("Signals");
  const reload = () =>
    void region.load(async () => {
      const res = await api.signals.listBehaviorSignals({ days: 30 });
      const byHour = res.byHour.length === 24 ? res.byHour : Array(24).fill(0);
      const byDay = res.byDay.length === 7 ? res.byDay : Array(7).fill(0);
      return h(
        "div",
        { class: "signal-charts" },
        h("p", { class: "muted" }, `${res.totalSignals ?? 0} signals in the last 30 days.`),
        h("h3", null, "By hour"),
        bars("Signals by hour", byHour, byHour.map((_, i) => String(i))),
        h("h3", null, "By day"),
        bars("Signals by day", byDay, dayNames),
      );
    });
  reload();
  return { el: h("section", { class: "assistant-signals", "aria-label": "Activity by hour and day" }, h("h2", null, "When you work"), region.el), reload };
}

function learningEl(l: Learning, reload: () => void): HTMLElement {
  const problem = h("div", { class: "item-problem" });
  const text = h("span", { class: "learning-content" }, l.content);
  const fail = (e: unknown) => {
    if (isUnauthenticated(e)) reportUnauthenticated();
    replace(problem, h("p", { class: "error", role: "alert" }, errorText(e)));
  };
  const li = h("li", { class: "learning", "data-id": l.id });
  const show = () =>
    replace(
      li,
      h("span", { class: "chip" }, termLabel("learning_category", l.category)),
      " ",
      text,
      h("span", { class: "muted" }, ` ${Math.round(l.confidence * 100)}%`),
      h("button", { type: "button", class: "secondary", "aria-label": `Edit ${l.content}`, onclick: edit }, "Edit"),
      h(
        "button",
        {
          type: "button",
          class: "secondary",
          "aria-label": `Dismiss ${l.content}`,
          onclick: async (e: Event) => {
            (e.currentTarget as HTMLButtonElement).disabled = true;
            try {
              await api.learnings.updateLearning({ id: l.id, dismissed: true });
              toast("Dismissed: it will not be suggested again.");
              reload();
            } catch (err) {
              fail(err);
              (e.currentTarget as HTMLButtonElement | null)?.removeAttribute("disabled");
            }
          },
        },
        "Dismiss",
      ),
      problem,
    );
  const edit = () => {
    const input = h("input", { type: "text", value: l.content, maxlength: 2000, "aria-label": "Learning", required: true });
    replace(
      li,
      h(
        "form",
        {
          class: "learning-edit",
          onsubmit: async (e: Event) => {
            e.preventDefault();
            try {
              const res = await api.learnings.updateLearning({ id: l.id, content: input.value.trim() });
              if (res.learning) l = res.learning;
              text.textContent = l.content;
              show();
            } catch (err) {
              fail(err);
            }
          },
        },
        input,
        h("button", { type: "submit" }, "Save"),
        h("button", { type: "button", class: "secondary", onclick: show }, "Cancel"),
      ),
      problem,
    );
    input.focus();
  };
  show();
  return li;
}

// learningsPanel lists the active learnings and runs the analysis.
export function learningsPanel(): { el: HTMLElement; reload: () => void } {
  const region = new Region("Learnings");
  const charts = chartPanel();
  const status = h("div", { class: "form-status", role: "status" });
  const reload = () =>
    void region.load(async () => {
      const res = await api.learnings.listLearnings({});
      if (res.learnings.length === 0) return emptyState("Nothing learned yet: Switchboard learns from what you do, daily.");
      return h("ul", { class: "learnings" }, res.learnings.map((l) => learningEl(l, reload)));
    });
  const analyze = h(
    "button",
    {
      type: "button",
      class: "secondary",
      onclick: async () => {
        analyze.disabled = true;
        replace(status);
        try {
          const res = await api.learnings.analyzeLearnings({});
          replace(status, `${res.created.length} new, ${res.refreshed.length} refreshed from ${res.signalsAnalyzed} signals.`);
          reload();
          charts.reload();
        } catch (e) {
          if (isUnauthenticated(e)) reportUnauthenticated();
          replace(status, h("p", { class: "error", role: "alert" }, errorText(e)));
        } finally {
          analyze.disabled = false;
        }
      },
    },
    "Learn now",
  );
  reload();
  const el = h(
    "section",
    { class: "assistant-learnings", "aria-label": "Learnings" },
    h("h2", null, "Learnings"),
    region.el,
    analyze,
    status,
    charts.el,
  );
  return { el, reload };
}
