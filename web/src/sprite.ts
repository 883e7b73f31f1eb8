// The sprite: the assistant drawn as a small figure in the corner of every
// view (RULINGS "Onboarding, sprite, admin views, the developer portal"),
// following the operator's SpriteSettings (GET|PUT /api/user/sprite-settings):
// shown or not, its label, its speed, what it does while idle (float, still,
// hidden), its opacity and size. It shows the assistant's state: idle,
// thinking while a reply streams (views/assistant.ts), and a badge when
// something waits for the operator (the items pending confirmation, counted
// by the shell). The motion is CSS only and stops under
// prefers-reduced-motion. It takes no clicks (pointer-events: none), so it
// never covers a control of the view beneath it.
import type { SpriteSettings } from "./gen/switchboard/v1/sprite_pb";
import { SpriteIdleStyle } from "./gen/vocabulary_terms";
import { api } from "./api";
import { h } from "./dom";

const svgNS = "http://www.w3.org/2000/svg";

function svg(tag: string, attrs: Record<string, string | number>, ...children: SVGElement[]): SVGElement {
  const el = document.createElementNS(svgNS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  el.append(...children);
  return el;
}

// figure is the assistant: a round body with eyes, an antenna, and three
// dots that show while it thinks.
function figure(): SVGElement {
  return svg(
    "svg",
    { class: "sprite-figure", viewBox: "0 0 64 64", width: 64, height: 64, "aria-hidden": "true", focusable: "false" },
    svg("line", { class: "sprite-antenna", x1: 32, y1: 14, x2: 32, y2: 5 }),
    svg("circle", { class: "sprite-antenna-tip", cx: 32, cy: 5, r: 3 }),
    svg("rect", { class: "sprite-body", x: 10, y: 14, width: 44, height: 38, rx: 16 }),
    svg("circle", { class: "sprite-eye", cx: 24, cy: 31, r: 4 }),
    svg("circle", { class: "sprite-eye", cx: 40, cy: 31, r: 4 }),
    svg("path", { class: "sprite-mouth", d: "M25 41 Q32 46 39 41" }),
    svg(
      "g",
      { class: "sprite-dots" },
      svg("circle", { cx: 22, cy: 60, r: 2.5 }),
      svg("circle", { cx: 32, cy: 60, r: 2.5 }),
      svg("circle", { cx: 42, cy: 60, r: 2.5 }),
    ),
  );
}

class Sprite {
  readonly el: HTMLElement;
  private readonly label: HTMLElement;
  private readonly badge: HTMLElement;
  private settings?: SpriteSettings;
  private thinking = 0;
  private waiting = 0;

  constructor() {
    this.label = h("span", { class: "sprite-label" });
    this.badge = h("span", { class: "badge sprite-badge", hidden: true });
    this.el = h("div", { class: "sprite", role: "img", hidden: true, "data-state": "idle" }, figure(), this.badge, this.label);
  }

  // apply draws the figure as settings say.
  apply(s: SpriteSettings): void {
    this.settings = s;
    const d = this.el.dataset;
    d.size = s.size;
    d.speed = s.animationSpeed;
    d.idle = s.idleStyle;
    d.labels = String(s.showLabels);
    // CSSOM, not a style attribute: the page's CSP allows only its own sheets.
    this.el.style.opacity = String(s.opacity);
    this.draw();
  }

  // think marks a reply streaming (true) or ended (false); replies may
  // overlap.
  think(on: boolean): void {
    this.thinking = Math.max(0, this.thinking + (on ? 1 : -1));
    this.draw();
  }

  // wait sets how many things wait for the operator.
  wait(n: number): void {
    this.waiting = n;
    this.draw();
  }

  private draw(): void {
    const s = this.settings;
    const thinking = this.thinking > 0;
    const state = thinking ? "thinking" : "idle";
    this.el.dataset.state = state;
    this.el.dataset.waiting = String(this.waiting > 0);
    // Hidden while idle means: shown only while it has something to say.
    const quiet = s?.idleStyle === SpriteIdleStyle.Hidden && !thinking && this.waiting === 0;
    this.el.hidden = !s || !s.enabled || quiet;
    this.badge.hidden = this.waiting === 0;
    this.badge.textContent = String(this.waiting);
    const words = thinking ? "Thinking…" : this.waiting > 0 ? `${this.waiting} waiting for you` : "Idle";
    this.label.textContent = words;
    this.label.hidden = !s?.showLabels;
    this.el.setAttribute("aria-label", `Assistant: ${words}`);
    this.el.title = `Assistant: ${words}`;
  }

  // load reads the operator's settings.
  async load(): Promise<void> {
    try {
      const res = await api.sprite.getSpriteSettings({});
      if (res.settings) this.apply(res.settings);
    } catch {
      // No figure rather than an error: it is decoration over the views.
    }
  }
}

// sprite is the one figure of the page.
export const sprite = new Sprite();
