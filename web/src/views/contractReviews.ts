// A closed engagement's reviews (EconomyService.ReviewContract and
// SetReviewVisibility): the caller's form while the 14-day window is open,
// then their own review with a show/hide toggle of its text (the scores
// always count), and the other side's review once the server lets it be
// read. Reviews are blind: the other side's shows only when both are in or
// the window has ended; until then counterpartReviewed says whether it was
// written, never what it says.
import { api, toDate } from "../api";
import { h, uid } from "../dom";
import type { Contract, ContractReview } from "../gen/switchboard/v1/economy_pb";
import { ReviewVisibility } from "../gen/vocabulary_terms";
import { announce } from "../refresh";
import { act, facts, timeOf, toast } from "../ui";
import { termLabel } from "../vocabulary";
import { nameOf, otherSide } from "./contractSides";

// The four scores of ReviewContractRequest, each 1 to 5.
const scores = [
  ["overall", "Overall"],
  ["communication", "Communication"],
  ["quality", "Quality"],
  ["timeliness", "Timeliness"],
] as const;
type Score = (typeof scores)[number][0];

function scoreSelect(name: Score): HTMLSelectElement {
  return h(
    "select",
    { name, id: uid(`score-${name}`), required: true },
    h("option", { value: "" }, "Choose…"),
    [5, 4, 3, 2, 1].map((n) => h("option", { value: String(n) }, `${n} of 5`)),
  );
}

function reviewForm(c: Contract, changed: () => void): HTMLElement {
  const selects = scores.map(([name]) => scoreSelect(name));
  const text = h("textarea", { name: "text", id: uid("review-text"), rows: 3, maxlength: 5000 });
  const problem = h("div", { class: "form-status" });
  const submit = h("button", { type: "submit" }, "Submit review");
  const value = (name: Score) => Number(selects[scores.findIndex(([n]) => n === name)]!.value);
  return h(
    "form",
    {
      class: "key-form review-form",
      "aria-label": "Your review",
      onsubmit: (e: Event) => {
        e.preventDefault();
        void act(
          submit,
          problem,
          () =>
            api.economy.reviewContract({
              id: c.id,
              overall: value("overall"),
              communication: value("communication"),
              quality: value("quality"),
              timeliness: value("timeliness"),
              text: text.value.trim() || undefined,
            }),
          () => {
            toast(`Reviewed ${nameOf(c, otherSide(c))}.`);
            announce("activity");
            changed();
          },
        );
      },
    },
    h("h4", null, `Review ${nameOf(c, otherSide(c))}`),
    h(
      "div",
      { class: "field-row" },
      scores.map(([, title], i) => h("div", { class: "field" }, h("label", { for: selects[i]!.id }, title), selects[i]!)),
    ),
    h("div", { class: "field" }, h("label", { for: text.id }, "In words (optional)"), text),
    problem,
    submit,
  );
}

// reviewEl shows one review's scores and, when readable, its text.
function reviewEl(r: ContractReview, heading: string, mine: boolean, changed: () => void): HTMLElement {
  const hidden = r.visibility === ReviewVisibility.Hidden;
  const problem = h("div", { class: "widget-problem" });
  const toggle =
    mine &&
    r.text &&
    (() => {
      const to = hidden ? ReviewVisibility.Public : ReviewVisibility.Hidden;
      const b: HTMLButtonElement = h(
        "button",
        {
          type: "button",
          class: "secondary",
          onclick: () =>
            void act(b, problem, () => api.economy.setReviewVisibility({ id: r.id, visibility: to }), () => {
              toast(to === ReviewVisibility.Hidden ? "Your review's text is hidden; its scores still count." : "Your review's text is shown.");
              changed();
            }),
        },
        hidden ? "Show my review's text" : "Hide my review's text",
      );
      return b;
    })();
  return h(
    "section",
    { class: "contract-review", "data-by": r.by, "aria-label": heading },
    h("h4", null, heading),
    facts(
      heading,
      scores.map(([name, title]) => [title, `${r[name]} of 5`]),
    ),
    r.text ? h("blockquote", { class: "review-text" }, r.text) : h("p", { class: "muted" }, hidden ? "Its text is hidden." : "No words."),
    h(
      "p",
      { class: "muted" },
      "Written ",
      timeOf(r.createdAt),
      mine && ` · text ${termLabel("review_visibility", r.visibility).toLowerCase()}`,
    ),
    toggle && h("div", { class: "widget-buttons" }, toggle),
    problem,
  );
}

// reviewsPanel is the closed contract's reviews.
export function reviewsPanel(c: Contract, reviews: ContractReview[], counterpartReviewed: boolean, changed: () => void): HTMLElement {
  const other = nameOf(c, otherSide(c));
  const mine = reviews.find((r) => r.by === c.role);
  const theirs = reviews.find((r) => r.by !== c.role);
  const ends = toDate(c.reviewWindowEndsAt);
  const open = !ends || ends.getTime() > Date.now();
  const when = ends && [open ? "You may review until " : "The review window ended ", timeOf(c.reviewWindowEndsAt), "."];
  let yours: HTMLElement;
  if (mine) yours = reviewEl(mine, "Your review", true, changed);
  else if (open) yours = reviewForm(c, changed);
  else yours = h("p", { class: "muted" }, "You did not review.");
  return h(
    "section",
    { class: "panel contract-reviews", "aria-labelledby": "contract-reviews" },
    h("h3", { id: "contract-reviews" }, "Reviews"),
    when && h("p", { class: "hint" }, when),
    yours,
    theirs ? reviewEl(theirs, `${other}'s review`, false, changed) : waiting(other, !!mine, counterpartReviewed),
  );
}

// waiting says where the other side's review is while it cannot be read.
function waiting(other: string, mine: boolean, counterpartReviewed: boolean): HTMLElement {
  if (!counterpartReviewed) return h("p", { class: "muted counterpart-waiting" }, `${other} has not reviewed yet.`);
  // Blind: theirs is held back until both are in (and, across instances,
  // until it has travelled here).
  const until = mine ? "it shows here once it arrives" : "it shows once yours is in";
  return h("p", { class: "notice counterpart-reviewed", role: "status" }, `${other} has reviewed you: ${until}.`);
}
