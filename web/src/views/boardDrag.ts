// Moving a board card by dragging it: with a mouse from anywhere on the card,
// by touch or pen from its grip (elsewhere a finger scrolls the board), and
// from the keyboard on the grip: Space or Enter picks the card up, the arrow
// keys choose a column, Space or Enter drops it there, Escape puts it back.
// Each step is said in a live region. Pointer events serve every kind of
// pointer alike (HTML drag and drop has no touch on most phones); the card's
// Move select stays as the plain fallback.
import { h } from "../dom";
import { termLabel } from "../vocabulary";

export type DragBoard = {
  // The scrolling strip of columns.
  strip(): HTMLElement;
  // The columns shown, left to right (section.column[data-status]).
  columns(): HTMLElement[];
  // Moves the card to status; the board reloads on its own.
  drop(cardId: string, status: string): void;
};

const helpId = "board-drag-help";
// How far a pointer travels before a press becomes a drag (a click stays a click).
const threshold = 6;
// The band at the strip's edges that scrolls it while a card is dragged there.
const edge = 48;

export class BoardDrag {
  readonly help: HTMLElement;
  readonly status: HTMLElement;
  private lifted: { cardId: string; title: string; from: string; at: number; grip: HTMLElement } | null = null;
  private stopPointer: (() => void) | null = null;
  private waiting: (() => void)[] = [];

  constructor(private board: DragBoard) {
    this.help = h(
      "p",
      { id: helpId, class: "visually-hidden" },
      "Press Space or Enter to pick the card up, the left and right arrow keys to choose a column, Space or Enter to drop it, Escape to cancel.",
    );
    this.status = h("div", { class: "visually-hidden", role: "status", "aria-live": "assertive" });
  }

  // idle resolves once no card is in hand (lifted from the keyboard, or
  // pressed or dragged by a pointer). The board draws its columns only then:
  // a live refresh that replaced the card under the operator's hand would
  // drop a keyboard grab (its grip loses the focus) or a press.
  idle(): Promise<void> {
    if (!this.lifted && !this.stopPointer) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private settle(): void {
    if (this.lifted || this.stopPointer) return;
    const waiting = this.waiting;
    this.waiting = [];
    for (const resolve of waiting) resolve();
  }

  // grip is the card's drag handle; attach installs the mouse drag on the card.
  grip(cardId: string, title: string, status: string): HTMLButtonElement {
    const b = h(
      "button",
      {
        type: "button",
        class: "grip",
        "aria-label": `Drag ${title}`,
        "aria-describedby": helpId,
        "aria-roledescription": "draggable card",
        "data-focus-key": `card-grip-${cardId}`,
        title: "Drag to another column (or press Space, then the arrow keys)",
      },
      "⠿",
    );
    b.addEventListener("keydown", (e) => this.key(e, b, cardId, title, status));
    b.addEventListener("blur", () => {
      if (this.lifted?.grip === b) this.cancel();
    });
    // A click (a tap, or Enter read as a click) does nothing by itself.
    b.addEventListener("click", (e) => e.preventDefault());
    return b;
  }

  attach(card: HTMLElement, cardId: string, title: string, status: string): void {
    card.addEventListener("pointerdown", (e) => this.press(e, card, cardId, title, status));
  }

  // Keyboard: pick up, choose, drop.
  private key(e: KeyboardEvent, grip: HTMLElement, cardId: string, title: string, status: string): void {
    const cols = this.board.columns();
    if (e.key === " " || e.key === "Enter") {
      e.preventDefault();
      if (!this.lifted) {
        const at = Math.max(0, cols.findIndex((c) => c.dataset.status === status));
        this.lifted = { cardId, title, from: status, at, grip };
        grip.closest(".kcard")?.classList.add("lifted");
        grip.setAttribute("aria-pressed", "true");
        this.mark(cols[at]);
        this.say(`Picked up ${title} in ${termLabel("card_status", status)}. Use the arrow keys to choose a column, Space to drop, Escape to cancel.`);
        return;
      }
      const target = cols[this.lifted.at]?.dataset.status ?? this.lifted.from;
      const from = this.lifted.from;
      this.end();
      if (target === from) this.say(`${title} stays in ${termLabel("card_status", from)}.`);
      else {
        this.say(`Dropped ${title} in ${termLabel("card_status", target)}.`);
        this.board.drop(cardId, target);
      }
      return;
    }
    if (!this.lifted) return;
    if (e.key === "Escape") {
      e.preventDefault();
      e.stopPropagation();
      this.cancel();
      return;
    }
    const step = e.key === "ArrowRight" || e.key === "ArrowDown" ? 1 : e.key === "ArrowLeft" || e.key === "ArrowUp" ? -1 : 0;
    if (!step) return;
    e.preventDefault();
    const at = Math.min(cols.length - 1, Math.max(0, this.lifted.at + step));
    this.lifted.at = at;
    this.mark(cols[at]);
    cols[at]?.scrollIntoView({ block: "nearest", inline: "nearest" });
    this.say(termLabel("card_status", cols[at]?.dataset.status ?? ""));
  }

  private cancel(): void {
    if (!this.lifted) return;
    const { title, from } = this.lifted;
    this.end();
    this.say(`Move cancelled: ${title} stays in ${termLabel("card_status", from)}.`);
  }

  private end(): void {
    if (this.lifted) {
      this.lifted.grip.closest(".kcard")?.classList.remove("lifted");
      this.lifted.grip.removeAttribute("aria-pressed");
    }
    this.lifted = null;
    this.mark(undefined);
    this.settle();
  }

  private mark(col: HTMLElement | undefined): void {
    for (const c of this.board.columns()) c.classList.toggle("drop", c === col);
  }

  private say(text: string): void {
    this.status.textContent = text;
  }

  // Pointer: a press that travels past the threshold drags a copy of the card;
  // the column under the pointer is the target; the strip scrolls near its
  // edges; release drops, Escape or a cancelled pointer puts it back.
  private press(e: PointerEvent, card: HTMLElement, cardId: string, title: string, status: string): void {
    if (e.button !== 0 || this.stopPointer || this.lifted) return;
    const target = e.target as HTMLElement;
    const onGrip = !!target.closest(".grip");
    // Form controls keep their own pointer behavior.
    if (target.closest("select, input, textarea, option")) return;
    // A finger or pen scrolls the board unless it starts on the grip.
    if (e.pointerType !== "mouse" && !onGrip) return;
    const x0 = e.clientX;
    const y0 = e.clientY;
    let ghost: HTMLElement | null = null;
    let over: HTMLElement | undefined;
    let px = x0;
    let py = y0;
    let frame = 0;
    // The column whose band holds the point: a short column takes a drop
    // below its last card too, anywhere over the strip.
    const columnAt = (x: number, y: number) => {
      const strip = this.board.strip().getBoundingClientRect();
      if (y < strip.top || y > strip.bottom || x < strip.left || x > strip.right) return undefined;
      return this.board.columns().find((c) => {
        const r = c.getBoundingClientRect();
        return x >= r.left && x <= r.right;
      });
    };
    const autoscroll = () => {
      frame = 0;
      if (!ghost) return;
      const r = this.board.strip().getBoundingClientRect();
      const dx = px < r.left + edge ? -12 : px > r.right - edge ? 12 : 0;
      if (dx) {
        this.board.strip().scrollLeft += dx;
        over = columnAt(px, py);
        this.mark(over);
        frame = requestAnimationFrame(autoscroll);
      }
    };
    const move = (ev: PointerEvent) => {
      if (ev.pointerId !== e.pointerId) return;
      px = ev.clientX;
      py = ev.clientY;
      if (!ghost) {
        if (Math.hypot(px - x0, py - y0) < threshold) return;
        const box = card.getBoundingClientRect();
        ghost = card.cloneNode(true) as HTMLElement;
        ghost.classList.add("drag-ghost");
        ghost.removeAttribute("data-id");
        ghost.setAttribute("aria-hidden", "true");
        // A copy for the eye only: no second id, label or focus target.
        for (const el of ghost.querySelectorAll("[id], [for], [data-focus-key]")) {
          el.removeAttribute("id");
          el.removeAttribute("for");
          el.removeAttribute("data-focus-key");
        }
        ghost.style.width = `${box.width}px`;
        ghost.style.left = `${box.left}px`;
        ghost.style.top = `${box.top}px`;
        document.body.append(ghost);
        document.body.classList.add("board-dragging");
        getSelection()?.removeAllRanges();
        card.classList.add("dragging");
      }
      ghost.style.transform = `translate(${px - x0}px, ${py - y0}px)`;
      over = columnAt(px, py);
      this.mark(over);
      if (!frame) frame = requestAnimationFrame(autoscroll);
    };
    const finish = (drop: boolean) => {
      this.stopPointer?.();
      const dragged = !!ghost;
      ghost?.remove();
      ghost = null;
      document.body.classList.remove("board-dragging");
      card.classList.remove("dragging");
      this.mark(undefined);
      if (!dragged) return;
      // The click that ends a drag is not a click on what was under it.
      const swallow = (ev: Event) => {
        ev.preventDefault();
        ev.stopPropagation();
      };
      window.addEventListener("click", swallow, { capture: true, once: true });
      setTimeout(() => window.removeEventListener("click", swallow, { capture: true }), 0);
      const to = over?.dataset.status;
      if (drop && to && to !== status) {
        this.say(`Dropped ${title} in ${termLabel("card_status", to)}.`);
        this.board.drop(cardId, to);
      }
    };
    const up = (ev: PointerEvent) => {
      if (ev.pointerId !== e.pointerId) return;
      px = ev.clientX;
      py = ev.clientY;
      if (ghost) over = columnAt(px, py);
      finish(true);
    };
    const cancel = (ev: PointerEvent) => {
      if (ev.pointerId === e.pointerId) finish(false);
    };
    const esc = (ev: KeyboardEvent) => {
      if (ev.key === "Escape" && ghost) {
        ev.preventDefault();
        finish(false);
      }
    };
    window.addEventListener("pointermove", move);
    window.addEventListener("pointerup", up);
    window.addEventListener("pointercancel", cancel);
    window.addEventListener("keydown", esc);
    this.stopPointer = () => {
      window.removeEventListener("pointermove", move);
      window.removeEventListener("pointerup", up);
      window.removeEventListener("pointercancel", cancel);
      window.removeEventListener("keydown", esc);
      if (frame) cancelAnimationFrame(frame);
      frame = 0;
      this.stopPointer = null;
      this.settle();
    };
  }

  // stop ends whatever drag is under way (the view unmounts).
  stop(): void {
    this.stopPointer?.();
    this.end();
  }
}
