// Onboarding on Now (RULINGS "Onboarding, sprite, admin views, the developer
// portal"): until the operator's onboarding is complete, Now shows first the
// intro (what Switchboard is, and a button that holds the intro and makes the
// checklist: POST /api/onboarding/intro, then /setup-project), then the
// checklist "Getting started": six steps, each checked by doing it (the
// server hears the real action) or by "Mark done" (/advance), each with a
// link to where it is done, and the date to finish by (setup-project's
// dueAt). The panel goes away with the sixth step.
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { api } from "../api";
import { h, replace, uid } from "../dom";
import type { GetOnboardingResponse, OnboardingStep as Step } from "../gen/switchboard/v1/onboarding_pb";
import { OnboardingStep } from "../gen/vocabulary_terms";
import { announce } from "../refresh";
import { act, dateInputValue, toast } from "../ui";

// Where each step is done.
const where: Record<string, { tab: string; label: string }> = {
  [OnboardingStep.APIKey]: { tab: "settings", label: "Open Settings" },
  [OnboardingStep.AutoApprove]: { tab: "settings", label: "Open Settings" },
  [OnboardingStep.Contact]: { tab: "contacts", label: "Open Contacts" },
  [OnboardingStep.Store]: { tab: "store", label: "Open the Store" },
  [OnboardingStep.Network]: { tab: "network", label: "Open Network" },
  [OnboardingStep.Assistant]: { tab: "assistant", label: "Open the Assistant" },
};

// onboardingPanel is Now's onboarding section: load reads where onboarding
// stands and draws the intro, the checklist, or nothing.
export function onboardingPanel(): { el: HTMLElement; load: () => Promise<void> } {
  const problem = h("div", { class: "widget-problem" });
  const body = h("div", { class: "region", "aria-label": "Onboarding" });
  const title = h("h2", { id: "now-onboarding" }, "Getting started");
  const el = h("section", { class: "panel onboarding", "aria-labelledby": "now-onboarding", hidden: true }, title, body, problem);
  let seq = 0;

  const load = async (): Promise<void> => {
    const my = ++seq;
    let res: GetOnboardingResponse;
    try {
      res = await api.onboarding.getOnboarding({});
    } catch {
      // Now's other panels still show; the checklist waits for the next refresh.
      return;
    }
    if (my !== seq) return;
    el.hidden = res.onboardingComplete;
    if (res.onboardingComplete) return;
    if (!res.card) replace(body, intro(res.onboardingPhase));
    else replace(body, checklist(res));
  };

  // intro is the first step: holding the intro and making the checklist.
  const intro = (phase: number): HTMLElement => {
    title.textContent = "Welcome to Switchboard";
    const start: HTMLButtonElement = h(
      "button",
      {
        type: "button",
        onclick: () =>
          void act(
            start,
            problem,
            async () => {
              if (phase < 6) await api.onboarding.startIntro({});
              await api.onboarding.setupProject({});
            },
            () => {
              toast("Your checklist is ready: it is also a card on the board.");
              announce("board", "activity");
              void load();
            },
          ),
      },
      "Start the checklist",
    );
    return h(
      "div",
      { class: "onboarding-intro" },
      h(
        "p",
        null,
        "Switchboard is where your agents' work meets you: what waits for your approval shows here on Now, ",
        "your assistant (the figure in the corner) works through the Assistant view, and other operators reach you over the network.",
      ),
      h("p", null, "Six steps set it up. Each checks itself off when you do it."),
      start,
    );
  };

  const checklist = (res: GetOnboardingResponse): HTMLElement => {
    title.textContent = "Getting started";
    const done = res.steps.filter((s) => s.completed).length;
    const dateId = uid("onboarding-due");
    const due: HTMLInputElement = h("input", {
      id: dateId,
      type: "date",
      value: dateInputValue(res.card?.dueDate),
      onchange: () => {
        if (!due.value) return;
        void act(
          null,
          problem,
          () => api.onboarding.setupProject({ dueAt: timestampFromDate(new Date(`${due.value}T00:00:00Z`)) }),
          () => toast(`Finish by ${due.value}.`),
        );
      },
    });
    return h(
      "div",
      { class: "onboarding-checklist" },
      h(
        "p",
        { class: "onboarding-progress" },
        h("progress", { max: res.steps.length, value: done, "aria-label": "Steps done" }),
        ` ${done} of ${res.steps.length} done`,
      ),
      h(
        "ol",
        { class: "onboarding-steps", "aria-label": "Onboarding steps" },
        res.steps.map((s) => stepRow(s)),
      ),
      h("p", { class: "onboarding-due" }, h("label", { for: dateId }, "Finish by "), due),
    );
  };

  const stepRow = (s: Step): HTMLElement => {
    const to = where[s.key];
    const mark: HTMLButtonElement | null = s.completed
      ? null
      : h(
          "button",
          {
            type: "button",
            class: "secondary small",
            "aria-label": `Mark done: ${s.text}`,
            onclick: () =>
              void act(mark, problem, () => api.onboarding.advanceOnboarding({ step: s.key }), () => {
                announce("board", "activity");
                void load();
              }),
          },
          "Mark done",
        );
    return h(
      "li",
      { class: s.completed ? "onboarding-step done" : "onboarding-step", "data-step": s.key },
      h("span", { class: "onboarding-check", "aria-hidden": "true" }, s.completed ? "✓" : ""),
      h("span", { class: "onboarding-text" }, s.text),
      s.completed ? h("span", { class: "chip onboarding-done" }, "Done") : null,
      !s.completed && to ? h("a", { href: `#/${to.tab}`, class: "onboarding-go" }, to.label) : null,
      mark,
    );
  };

  return { el, load };
}
