// The Network view's job board and provider capabilities
// (NetworkExchangeService): post a job to every active connection, the jobs
// posted (close one) and received, the capabilities the operator offers
// (declare, remove), and the received jobs ranked against them (match).
import { api } from "../api";
import { h, replace, uid } from "../dom";
import type { JobApplication } from "../gen/switchboard/v1/economy_pb";
import type { Job, ProviderCapability } from "../gen/switchboard/v1/network_exchange_pb";
import { centsOf, centsText } from "../money";
import { Region, act, chip, confirmStep, emptyState, timeOf, toast } from "../ui";
import { termLabel, terms } from "../vocabulary";

// skillsOf reads a comma- or line-separated list of skills.
function skillsOf(text: string): string[] {
  return text
    .split(/[,\n]/)
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

function select(id: string, name: string, vocabulary: string, chosen: string, blank?: string): HTMLSelectElement {
  return h(
    "select",
    { id, name },
    blank !== undefined && h("option", { value: "" }, blank),
    terms(vocabulary).map((t) => h("option", { value: t.value, selected: t.value === chosen }, t.label)),
  );
}

function jobFacts(j: Job): HTMLElement {
  return h(
    "div",
    { class: "muted" },
    termLabel("job_task_type", j.taskType),
    " · ",
    `${termLabel("job_urgency", j.urgency)} urgency`,
    j.estimatedHours !== undefined ? ` · about ${j.estimatedHours} h` : "",
    j.compensation ? ` · ${j.compensation}` : "",
    j.origin === "received" ? ` · from ${j.fromUserName || j.from || "a connection"}` : ` · shared with ${j.connectionIds.length} connection${j.connectionIds.length === 1 ? "" : "s"}`,
    " · ",
    timeOf(j.createdAt),
  );
}

function jobRow(j: Job, changed: () => void): HTMLElement {
  const problem = h("div", { class: "widget-problem" });
  const close =
    j.origin === "posted" && j.status === "open"
      ? confirmStep(
          "Close",
          { ask: `Close "${j.title}"? Your connections hear it is closed.`, yes: "Close the job", no: "Keep it open" },
          () =>
            act(null, problem, () => api.networkExchange.closeJob({ id: j.id }), () => {
              toast(`Closed "${j.title}".`);
              changed();
            }),
          { "aria-label": `Close: ${j.title}` },
        )
      : null;
  return h(
    "li",
    { class: "job", "data-job-id": j.id, "data-origin": j.origin, "data-status": j.status },
    h("span", { class: "job-title" }, j.title),
    " ",
    chip("job", "job_status", j.status),
    jobFacts(j),
    h("p", { class: "job-description" }, j.description),
    j.requiredSkills.length > 0 && h("p", { class: "muted" }, "Skills: ", j.requiredSkills.join(", ")),
    close && h("div", { class: "widget-buttons" }, close),
    j.origin === "received" && j.status === "open" && applyForm(j, changed),
    j.origin === "posted" && applicationsOf(j, changed),
    problem,
  );
}

// applyForm is an application to a received job (the job market, issue 29):
// its price and days, which the owner may award as a contract.
function applyForm(j: Job, changed: () => void): HTMLElement {
  const ids = { price: uid("apply-price"), days: uid("apply-days"), message: uid("apply-message") };
  const price = h("input", { id: ids.price, name: "price", inputmode: "decimal", required: true });
  const days = h("input", { id: ids.days, name: "days", type: "number", min: "0", max: "3650" });
  const message = h("textarea", { id: ids.message, name: "message", rows: 2 });
  const problem = h("div", { class: "widget-problem" });
  const submit = h("button", { type: "submit" }, "Apply");
  const form = h(
    "form",
    { class: "apply-form", "aria-label": `Apply: ${j.title}` },
    h("label", { for: ids.price }, "Your price"),
    price,
    h("label", { for: ids.days }, "Days to deliver"),
    days,
    h("label", { for: ids.message }, "Message"),
    message,
    h("div", { class: "widget-buttons" }, submit),
    problem,
  );
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    void act(
      submit,
      problem,
      () =>
        api.jobMarket.applyToJob({
          id: j.id,
          priceCents: centsOf(price.value),
          etaDays: Number(days.value) || 0,
          message: message.value.trim(),
        }),
      () => {
        toast(`Applied to "${j.title}".`);
        changed();
      },
    );
  });
  return form;
}

// applicationsOf lists a posted job's applications, cheapest first, each
// with Award while the job is open and direct (an auction awards itself).
function applicationsOf(j: Job, changed: () => void): HTMLElement {
  const slot = h("div", { class: "job-applications" });
  void api.jobMarket.listJobApplications({ id: j.id }).then(
    ({ applications }) => {
      if (applications.length === 0) return;
      replace(
        slot,
        h(
          "ul",
          { class: "network-list", "aria-label": `Applications: ${j.title}` },
          applications.map((a) => applicationRow(j, a, changed)),
        ),
      );
    },
    () => undefined,
  );
  return slot;
}

function applicationRow(j: Job, a: JobApplication, changed: () => void): HTMLElement {
  const problem = h("div", { class: "widget-problem" });
  const who = a.applicant?.name || "An applicant";
  const award =
    j.status === "open" && j.mode !== "auction" && a.status === "pending"
      ? h("button", { type: "button", "aria-label": `Award: ${who}` }, "Award")
      : null;
  award?.addEventListener("click", () => {
    let contractID = "";
    void act(
      award,
      problem,
      async () => {
        contractID = (await api.jobMarket.awardJob({ id: j.id, applicationId: a.id })).contract?.id ?? "";
      },
      () => {
        toast(`Awarded "${j.title}" to ${who}: contract offered.`);
        changed();
        if (contractID) window.location.hash = `#/engagements/${encodeURIComponent(contractID)}`;
      },
    );
  });
  return h(
    "li",
    { class: "job-application", "data-application-id": a.id, "data-status": a.status },
    h("strong", null, who),
    ` · ${centsText(a.priceCents, "USD")}`,
    a.etaDays > 0 ? ` · ${a.etaDays} day${a.etaDays === 1 ? "" : "s"}` : "",
    " ",
    chip("application", "application_status", a.status),
    a.message && h("p", { class: "muted" }, a.message),
    award && h("div", { class: "widget-buttons" }, award),
    problem,
  );
}

// jobsSection lists the posted and the received jobs.
function jobsSection(): { el: HTMLElement; reload: () => void } {
  const region = new Region("Jobs");
  const load = (): Promise<void> =>
    region.load(async () => {
      const [posted, received] = await Promise.all([
        api.networkExchange.listJobs({ origin: "posted", limit: 50 }),
        api.networkExchange.listJobs({ origin: "received", limit: 50 }),
      ]);
      const list = (label: string, jobs: Job[], empty: string) =>
        jobs.length === 0 ? emptyState(empty) : h("ul", { class: "network-list", "aria-label": label }, jobs.map((j) => jobRow(j, () => void load())));
      return [
        h("h3", null, "Jobs you posted"),
        list("Jobs you posted", posted.jobs, "You have posted no jobs."),
        h("h3", null, "Jobs from your connections"),
        list("Jobs from your connections", received.jobs, "No connection has shared a job with you."),
      ];
    });
  void load();
  return { el: region.el, reload: () => void load() };
}

function postForm(posted: () => void): HTMLElement {
  const ids = { title: uid("job-title"), description: uid("job-description"), type: uid("job-type"), urgency: uid("job-urgency"), skills: uid("job-skills"), hours: uid("job-hours"), pay: uid("job-pay") };
  const title = h("input", { id: ids.title, name: "title", required: true, maxlength: 500, autocomplete: "off" });
  const description = h("textarea", { id: ids.description, name: "description", required: true, rows: 3, maxlength: 10000 });
  const type = select(ids.type, "taskType", "job_task_type", "research");
  const urgency = select(ids.urgency, "urgency", "job_urgency", "medium");
  const skills = h("input", { id: ids.skills, name: "requiredSkills", autocomplete: "off" });
  const hours = h("input", { id: ids.hours, name: "estimatedHours", type: "number", min: 0, max: 100000, step: "any" });
  const pay = h("input", { id: ids.pay, name: "compensation", maxlength: 500, autocomplete: "off" });
  const status = h("p", { class: "form-status", role: "status" });
  const problem = h("div", { class: "form-status" });
  const submit = h("button", { type: "submit" }, "Post the job");
  return h(
    "form",
    {
      class: "key-form job-post",
      "aria-label": "Post a job",
      onsubmit: (e: Event) => {
        e.preventDefault();
        replace(status);
        void act(
          submit,
          problem,
          async () => {
            const res = await api.networkExchange.postJob({
              title: title.value.trim(),
              description: description.value.trim(),
              taskType: type.value,
              urgency: urgency.value,
              requiredSkills: skillsOf(skills.value),
              estimatedHours: hours.value === "" ? undefined : Number(hours.value),
              compensation: pay.value.trim(),
            });
            const reached = res.deliveries.filter((d) => d.delivered).length;
            const missed = res.deliveries.filter((d) => !d.delivered);
            const words =
              res.deliveries.length === 0
                ? "Posted. You have no active connections to share it with yet."
                : `Posted and shared with ${reached} of ${res.deliveries.length} connection${res.deliveries.length === 1 ? "" : "s"}.`;
            replace(status, words, missed.map((d) => h("span", { class: "error" }, ` Not reached: ${d.error ?? d.connectionId}.`)));
            toast(words);
          },
          () => {
            title.value = description.value = skills.value = hours.value = pay.value = "";
            posted();
          },
        );
      },
    },
    h("p", { class: "muted" }, "A job goes to all your active connections."),
    h("label", { for: ids.title }, "Job title"),
    title,
    h("label", { for: ids.description }, "What is to be done"),
    description,
    h(
      "div",
      { class: "field-row" },
      h("div", { class: "field" }, h("label", { for: ids.type }, "Kind of work"), type),
      h("div", { class: "field" }, h("label", { for: ids.urgency }, "Urgency"), urgency),
      h("div", { class: "field" }, h("label", { for: ids.hours }, "Hours (estimate)"), hours),
    ),
    h("label", { for: ids.skills }, "Skills needed (comma-separated)"),
    skills,
    h("label", { for: ids.pay }, "Compensation (optional)"),
    pay,
    submit,
    status,
    problem,
  );
}

function capabilityRow(c: ProviderCapability, changed: () => void): HTMLElement {
  const problem = h("div", { class: "widget-problem" });
  const name = `${termLabel("job_task_type", c.taskType)}${c.skills.length ? `: ${c.skills.join(", ")}` : ""}`;
  const remove = confirmStep(
    "Remove",
    { ask: `Stop offering ${name}?`, yes: "Remove", no: "Keep" },
    () =>
      act(null, problem, () => api.networkExchange.removeProviderCapability({ id: c.id }), () => {
        toast(`Removed ${name}.`);
        changed();
      }),
    { "aria-label": `Remove capability: ${name}` },
  );
  return h(
    "li",
    { class: "capability", "data-capability-id": c.id },
    h("span", { class: "capability-name" }, name),
    c.description && h("p", { class: "muted" }, c.description),
    c.pricingModel &&
      h("p", { class: "muted" }, termLabel("capability_pricing_model", c.pricingModel), c.price !== undefined ? ` · ${c.price}${c.currency ? ` ${c.currency}` : ""}` : ""),
    h("div", { class: "widget-buttons" }, remove),
    problem,
  );
}

function capabilityForm(declared: () => void): HTMLElement {
  const ids = { type: uid("cap-type"), skills: uid("cap-skills"), description: uid("cap-description"), pricing: uid("cap-pricing"), price: uid("cap-price"), currency: uid("cap-currency") };
  const type = select(ids.type, "taskType", "job_task_type", "research");
  const skills = h("input", { id: ids.skills, name: "skills", autocomplete: "off" });
  const description = h("input", { id: ids.description, name: "description", maxlength: 5000, autocomplete: "off" });
  const pricing = select(ids.pricing, "pricingModel", "capability_pricing_model", "", "Not said");
  const price = h("input", { id: ids.price, name: "price", type: "number", min: 0, step: "any" });
  const currency = h("input", { id: ids.currency, name: "currency", maxlength: 3, placeholder: "EUR", autocomplete: "off" });
  const problem = h("div", { class: "form-status" });
  const submit = h("button", { type: "submit" }, "Declare the capability");
  return h(
    "form",
    {
      class: "key-form capability-declare",
      "aria-label": "Declare a capability",
      onsubmit: (e: Event) => {
        e.preventDefault();
        void act(
          submit,
          problem,
          () =>
            api.networkExchange.declareCapability({
              taskType: type.value,
              skills: skillsOf(skills.value),
              description: description.value.trim(),
              pricingModel: pricing.value,
              price: price.value === "" ? undefined : Number(price.value),
              currency: currency.value.trim(),
            }),
          () => {
            toast("Capability declared.");
            skills.value = description.value = price.value = currency.value = "";
            declared();
          },
        );
      },
    },
    h("label", { for: ids.type }, "Kind of work you offer"),
    type,
    h("label", { for: ids.skills }, "Your skills (comma-separated)"),
    skills,
    h("label", { for: ids.description }, "Description (optional)"),
    description,
    h(
      "div",
      { class: "field-row" },
      h("div", { class: "field" }, h("label", { for: ids.pricing }, "Pricing"), pricing),
      h("div", { class: "field" }, h("label", { for: ids.price }, "Price"), price),
      h("div", { class: "field" }, h("label", { for: ids.currency }, "Currency"), currency),
    ),
    submit,
    problem,
  );
}

function capabilitiesSection(changed: () => void): { el: HTMLElement; reload: () => void } {
  const region = new Region("Your capabilities");
  const load = (): Promise<void> =>
    region.load(async () => {
      const { capabilities } = await api.networkExchange.listProviderCapabilities({});
      return capabilities.length === 0
        ? emptyState("You have declared no capabilities.")
        : h(
            "ul",
            { class: "network-list", "aria-label": "Your capabilities" },
            capabilities.map((c) =>
              capabilityRow(c, () => {
                void load();
                changed();
              }),
            ),
          );
    });
  void load();
  return { el: region.el, reload: () => void load() };
}

function matchSection(): { el: HTMLElement; reload: () => void } {
  const region = new Region("Matching jobs");
  const load = (): Promise<void> =>
    region.load(async () => {
      const { matches } = await api.networkExchange.matchJobs({});
      if (matches.length === 0) return emptyState("No open job from your connections fits your capabilities.");
      return h(
        "ol",
        { class: "network-list job-matches", "aria-label": "Matching jobs" },
        matches.map((m) =>
          h(
            "li",
            { class: "job-match", "data-job-id": m.job?.id ?? "" },
            h("span", { class: "job-title" }, m.job?.title ?? ""),
            " ",
            h("span", { class: "chip job-score" }, `${Math.round(m.score * 100)}% fit`),
            m.job && jobFacts(m.job),
            h(
              "p",
              { class: "muted" },
              m.taskTypeMatch ? "Your kind of work" : "Another kind of work",
              m.matchedSkills.length > 0 ? ` · your skills: ${m.matchedSkills.join(", ")}` : "",
            ),
          ),
        ),
      );
    });
  void load();
  return { el: region.el, reload: () => void load() };
}

// jobsPanel is the jobs and capabilities part of the Network view.
export function jobsPanel(): { el: HTMLElement; reload: () => void } {
  const jobs = jobsSection();
  const match = matchSection();
  const caps = capabilitiesSection(match.reload);
  const el = h(
    "div",
    { class: "network-jobs" },
    h("h3", null, "Post a job"),
    postForm(jobs.reload),
    jobs.el,
    h("h3", null, "What you offer"),
    capabilityForm(() => {
      caps.reload();
      match.reload();
    }),
    caps.el,
    h("h3", null, "Jobs that fit what you offer"),
    h(
      "button",
      {
        type: "button",
        class: "secondary",
        onclick: () => {
          jobs.reload();
          match.reload();
        },
      },
      "Match again",
    ),
    match.el,
  );
  return {
    el,
    reload: () => {
      jobs.reload();
      match.reload();
    },
  };
}
