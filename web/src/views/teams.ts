// Teams (TeamService): the operator's teams, a new team, and a team's
// detail: its members with their roles (the owner and admins add and remove
// members; anyone but the owner may leave), its invites (an invite link is
// shown once, when it is made: the server keeps only a hash of its token),
// and the projects assigned to it (an owner or admin who leads a project
// assigns it, and every member joins it as a contributor). Members are added
// and invited by email or as one of the operator's connections (a remote
// member, named with their instance; the invite travels as a relay).
import { api, errorText, isUnauthenticated, paymentRequired } from "../api";
import { h, replace, uid } from "../dom";
import type { NetworkConnection } from "../gen/switchboard/v1/network_pb";
import type { Project } from "../gen/switchboard/v1/projects_pb";
import type { GetTeamResponse, Team, TeamInvite, TeamMember, TeamSubscription } from "../gen/switchboard/v1/teams_pb";
import { centsText } from "../money";
import { announce } from "../refresh";
import { Region, act, chip, confirmStep, copyButton, emptyState, facts, pager, reportUnauthenticated, timeOf, toast, type View } from "../ui";
import { termLabel, terms } from "../vocabulary";
import type { LoggedIn } from "./login";
import { ProjectRole, SubscriptionStatus, TeamPlan, TeamRole } from "../gen/vocabulary_terms";
import { memberName } from "./profile";
import { activeConnections, hostOf, peerLabel, remoteLabel, targetPicker } from "./targets";

const pageSize = 20;

// outOfSeatsText words a seat's 402: the plan the server quotes covers the
// seats asked for.
export function outOfSeatsText(q: { plan: string; amountCents: number; currency: string }): string {
  return `Your team is out of seats: the ${termLabel("team_plan", q.plan)} plan (${centsText(q.amountCents, q.currency)} a month) covers them`;
}

// outOfSeats is that refusal in the team's detail: for the owner, with a
// button to the Subscription panel (its plan chosen as quoted).
function outOfSeats(team: Team, q: { plan: string; amountCents: number; currency: string; extraSeats: number }): HTMLElement {
  const go = () => {
    const form = document.querySelector<HTMLFormElement>('form[aria-label="Subscribe"]');
    const plan = form?.querySelector<HTMLSelectElement>('select[name="plan"]');
    if (plan && q.plan) {
      plan.value = q.plan;
      plan.dispatchEvent(new Event("change"));
      const extra = form?.querySelector<HTMLInputElement>('input[name="extraSeats"]');
      if (extra) extra.value = String(q.extraSeats);
    }
    const title = document.getElementById("team-subscription");
    title?.scrollIntoView({ block: "start" });
    (plan ?? title)?.focus();
  };
  return h(
    "div",
    { class: "error out-of-seats", role: "alert" },
    h("p", null, `${outOfSeatsText(q)}.`),
    team.role === TeamRole.Owner && h("button", { type: "button", class: "secondary", onclick: go }, "Go to the subscription"),
  );
}

// seatAct is act for a call that takes a seat: a 402 shows as out of seats.
async function seatAct(team: Team, button: HTMLButtonElement, problem: HTMLElement, call: () => Promise<unknown>, done: () => void): Promise<void> {
  button.disabled = true;
  replace(problem);
  try {
    await call();
    done();
  } catch (e) {
    if (isUnauthenticated(e)) reportUnauthenticated();
    const q = paymentRequired(e);
    replace(problem, q ? outOfSeats(team, q) : h("p", { class: "error", role: "alert" }, errorText(e)));
  } finally {
    button.disabled = false;
  }
}

// subscriptionPanel is a platform team's plan: what it covers and costs,
// and for the owner the form that subscribes or changes it.
function subscriptionPanel(team: Team, sub: TeamSubscription | undefined, changed: () => void): HTMLElement {
  const seats = sub ? sub.seats : 1;
  const status = sub
    ? sub.status === SubscriptionStatus.PastDue
      ? h("strong", { class: "sub-status past-due" }, termLabel("subscription_status", sub.status), sub.pastDueSince ? [" since ", timeOf(sub.pastDueSince), ": the plan is canceled 7 days after"] : null)
      : sub.status === SubscriptionStatus.Canceled
        ? h("strong", { class: "sub-status canceled" }, `${termLabel("subscription_status", sub.status)}: the team has its owner's seat only`)
        : termLabel("subscription_status", sub.status)
    : null;
  const summary = sub
    ? facts("Subscription", [
        ["Plan", termLabel("team_plan", sub.plan)],
        ["Status", status],
        ["Seats", `${team.memberCount} of ${sub.seats} used`],
        ["Price", `${centsText(sub.amountCents, sub.currency)} a month`],
        ["Next renewal", sub.status === SubscriptionStatus.Canceled ? null : timeOf(sub.currentPeriodEnd)],
      ])
    : h(
        "div",
        null,
        h("p", null, "No plan yet: the team has one seat, its owner's."),
        facts("Subscription", [["Seats", `${team.memberCount} of ${seats} used`]]),
      );
  let form: HTMLElement | null = null;
  if (team.role === TeamRole.Owner) {
    const plan = h(
      "select",
      { name: "plan" },
      terms("team_plan").map((t) => h("option", { value: t.value, selected: sub ? t.value === sub.plan : t.value === TeamPlan.Starter }, t.label)),
    );
    const extra = h("input", { name: "extraSeats", type: "number", min: 0, max: 10000, step: 1, value: String(sub?.extraSeats ?? 0) });
    const extraField = field("Extra seats (beyond the plan's ten)", extra);
    const showExtra = () => (extraField.hidden = plan.value !== TeamPlan.Pro);
    plan.addEventListener("change", showExtra);
    showExtra();
    const problem = h("div", { class: "form-status" });
    const submit = h("button", { type: "submit" }, sub && sub.status !== SubscriptionStatus.Canceled ? "Change plan" : "Subscribe");
    form = h(
      "form",
      {
        class: "key-form",
        "aria-label": "Subscribe",
        onsubmit: (e: Event) => {
          e.preventDefault();
          void act(
            submit,
            problem,
            async () => {
              const res = await api.teams.subscribeTeam({
                id: team.id,
                plan: plan.value,
                extraSeats: plan.value === TeamPlan.Pro ? Math.max(0, Number(extra.value) || 0) : 0,
              });
              const s = res.subscription;
              toast(`${team.name} is on the ${termLabel("team_plan", s?.plan ?? plan.value)} plan${s ? `: ${s.seats} seats` : ""}.`);
              announce("activity");
            },
            changed,
          );
        },
      },
      h("h4", null, sub ? "Change plan" : "Subscribe"),
      field("Plan", plan),
      extraField,
      problem,
      submit,
    );
  }
  return h(
    "section",
    { class: "panel team-subscription", "aria-labelledby": "team-subscription" },
    h("h3", { id: "team-subscription", tabindex: -1 }, "Subscription"),
    summary,
    form,
  );
}

// The roles a member can be given: the team has one owner, made by creating
// it or by a transfer.
const grantableRoles = () => terms("team_role").filter((t) => t.value !== TeamRole.Owner);

function field(title: string, control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement): HTMLElement {
  control.id ||= uid("team");
  return h("div", { class: "field" }, h("label", { for: control.id }, title), control);
}

function roleSelect(name: string): HTMLSelectElement {
  return h(
    "select",
    { name },
    grantableRoles().map((t) => h("option", { value: t.value, selected: t.value === TeamRole.Member }, t.label)),
  );
}

function teamRow(t: Team): HTMLElement {
  return h(
    "li",
    { class: "group-row", "data-team-id": t.id },
    h(
      "a",
      { href: `#/teams/${encodeURIComponent(t.id)}`, "data-focus-key": `team-${t.id}` },
      h("span", { class: "group-name" }, t.name),
    ),
    " ",
    h("span", { class: "muted" }, `@${t.handle}`),
    h(
      "div",
      { class: "group-sub" },
      t.role && chip("team-role", "team_role", t.role),
      chip("visibility", "team_visibility", t.visibility),
      h("span", { class: "muted" }, `${t.memberCount} member${t.memberCount === 1 ? "" : "s"}`),
    ),
  );
}

function newTeamForm(done: (id: string) => void, cancel: () => void): HTMLElement {
  const name = h("input", { name: "name", required: true, maxlength: 200, autocomplete: "off" });
  const handle = h("input", { name: "handle", maxlength: 30, pattern: "[a-z0-9_.\\-]{2,30}", autocomplete: "off", autocapitalize: "none" });
  const description = h("textarea", { name: "description", rows: 2, maxlength: 5000 });
  const visibility = h(
    "select",
    { name: "visibility" },
    terms("team_visibility").map((t, i) => h("option", { value: t.value, selected: i === 0 }, t.label)),
  );
  const problem = h("div", { class: "form-status" });
  const submit = h("button", { type: "submit" }, "Create team");
  const form = h(
    "form",
    {
      class: "panel key-form",
      "aria-label": "New team",
      onsubmit: (e: Event) => {
        e.preventDefault();
        let id = "";
        void act(
          submit,
          problem,
          async () => {
            const res = await api.teams.createTeam({
              name: name.value.trim(),
              handle: handle.value.trim() || undefined,
              description: description.value.trim() || undefined,
              visibility: visibility.value,
            });
            id = res.team?.id ?? "";
            toast(`Created the team ${res.team?.name ?? ""}.`);
            announce("activity");
          },
          () => done(id),
        );
      },
    },
    h("h2", null, "New team"),
    field("Name", name),
    field("Handle (optional: 2–30 of a–z, 0–9, _ . -; made from the name when empty)", handle),
    field("Description (optional)", description),
    field("Visibility", visibility),
    problem,
    h("div", { class: "editor-actions" }, submit, h("button", { type: "button", class: "secondary", onclick: cancel }, "Cancel")),
  );
  queueMicrotask(() => name.focus());
  return form;
}

function memberRow(team: Team, m: TeamMember, me: boolean, changed: (left: boolean) => void): HTMLElement {
  // A remote member's memberId is their connection's id: never "you".
  const shown = remoteLabel(m.name, m.instanceUrl);
  const problem = h("div", { class: "widget-problem" });
  const manager = team.role === TeamRole.Owner || team.role === TeamRole.Admin;
  let control: HTMLElement | null = null;
  if (me && m.role !== TeamRole.Owner) {
    control = confirmStep(
      "Leave",
      { ask: `Leave ${team.name}?`, yes: "Leave the team", no: "Stay" },
      () =>
        act(null, problem, () => api.teams.removeTeamMember({ id: team.id, memberId: m.memberId }), () => {
          toast(`You left ${team.name}.`);
          announce("activity");
          changed(true);
        }),
      { "aria-label": `Leave ${team.name}` },
    );
  } else if (!me && manager && m.role !== TeamRole.Owner) {
    control = confirmStep(
      "Remove",
      { ask: `Remove ${shown} from the team?`, yes: "Remove", no: "Keep" },
      () =>
        act(null, problem, () => api.teams.removeTeamMember({ id: team.id, memberId: m.memberId }), () => {
          toast(`Removed ${shown} from ${team.name}.`);
          announce("activity");
          changed(false);
        }),
      { "aria-label": `Remove ${shown}` },
    );
  }
  return h(
    "li",
    { class: "member-row", "data-member-id": m.memberId, "data-remote": m.connectionId ? "true" : undefined },
    memberName(m),
    m.instanceUrl && h("span", { class: "member-instance" }, ` · ${hostOf(m.instanceUrl)}`),
    m.username && h("span", { class: "muted" }, ` @${m.username}`),
    me && h("span", { class: "muted" }, " (you)"),
    " ",
    chip("team-role", "team_role", m.role),
    h("div", { class: "muted" }, "Joined ", timeOf(m.joinedAt)),
    control && h("div", { class: "widget-buttons" }, control),
    problem,
  );
}

function addMemberForm(team: Team, conns: Promise<NetworkConnection[]>, changed: () => void): HTMLElement {
  const who = targetPicker({ emailTitle: "Their email here", emailRequired: true, connections: conns });
  const role = roleSelect("role");
  const problem = h("div", { class: "form-status" });
  const submit = h("button", { type: "submit" }, "Add member");
  return h(
    "form",
    {
      class: "key-form",
      "aria-label": "Add a member",
      onsubmit: (e: Event) => {
        e.preventDefault();
        void seatAct(
          team,
          submit,
          problem,
          async () => {
            const named = who.label();
            const res = await api.teams.addTeamMember({ id: team.id, ...who.value(), role: role.value });
            const m = res.member;
            toast(`${m ? remoteLabel(m.name, m.instanceUrl) : named} joined ${team.name}.`);
            announce("activity");
          },
          () => {
            who.reset();
            changed();
          },
        );
      },
    },
    h("h3", null, "Add a member"),
    who.el,
    field("Role", role),
    problem,
    submit,
  );
}

function inviteTarget(i: TeamInvite, members: TeamMember[], conns: NetworkConnection[]): string {
  if (i.email) return i.email;
  if (i.userId) {
    const m = members.find((x) => x.userId === i.userId);
    return m ? m.name : "A user of this instance";
  }
  if (i.connectionId) {
    const c = conns.find((x) => x.id === i.connectionId);
    return c ? peerLabel(c) : "A connection's peer";
  }
  return "Anyone with the link";
}

function inviteRow(i: TeamInvite, members: TeamMember[], conns: NetworkConnection[]): HTMLElement {
  return h(
    "li",
    { class: "invite-row", "data-invite-id": i.id, "data-status": i.status },
    h("span", { class: "member-name" }, inviteTarget(i, members, conns)),
    " ",
    chip("team-role", "team_role", i.role),
    " ",
    chip("invite", "invite_status", i.status),
    h(
      "div",
      { class: "muted" },
      "Made ",
      timeOf(i.createdAt),
      i.answeredAt ? [" · answered ", timeOf(i.answeredAt)] : [" · expires ", timeOf(i.expiresAt)],
    ),
    i.message && h("p", { class: "network-message" }, i.message),
  );
}

// inviteLink is the absolute address of an invite: the server answers it
// relative ("/#/invite/…") when it has no public URL.
function inviteLink(url: string, token: string): string {
  const path = url || `/#/invite/${token}`;
  return path.startsWith("/") ? `${location.origin}${path}` : path;
}

function createInviteForm(team: Team, conns: Promise<NetworkConnection[]>, changed: () => void): HTMLElement {
  const who = targetPicker({
    emailTitle: "Their email (optional: without one, anyone signed in here who has the link may join)",
    emailRequired: false,
    connections: conns,
  });
  const role = roleSelect("role");
  const message = h("input", { name: "message", maxlength: 2000, autocomplete: "off" });
  const created = h("div", { class: "created-slot" });
  const problem = h("div", { class: "form-status" });
  const submit = h("button", { type: "submit" }, "Create invite");
  const showOnce = (link: string, target: string) => {
    const out = h("output", { class: "secret invite-link", "aria-label": "The invite link" }, link);
    const done = h(
      "button",
      {
        type: "button",
        class: "secondary",
        onclick: () => {
          // Gone from the page for good: the server keeps only a hash of the token.
          replace(created);
          submit.focus();
        },
      },
      "Done, I have saved it",
    );
    replace(
      created,
      h(
        "div",
        { class: "once", role: "alert" },
        h("h4", null, `Invite link for ${target}`),
        h("p", null, "Copy it now: the link is shown only this once and cannot be shown again. It works for 7 days."),
        h("div", { class: "secret-row" }, out, copyButton(out, link, "Copy")),
        done,
      ),
    );
    done.focus();
  };
  return h(
    "div",
    null,
    h(
      "form",
      {
        class: "key-form",
        "aria-label": "Create an invite",
        onsubmit: (e: Event) => {
          e.preventDefault();
          void act(
            submit,
            problem,
            async () => {
              const target = who.value();
              const named = who.label();
              const res = await api.teams.createTeamInvite({
                id: team.id,
                ...target,
                role: role.value,
                message: message.value.trim() || undefined,
              });
              // A connection's invite travels to their instance as a relay,
              // which carries its link: nothing to copy here.
              if (target.connectionId) {
                replace(created);
                toast(`Invited ${named} to ${team.name}: it waits in their Now on their instance.`);
              } else showOnce(inviteLink(res.url, res.token), named || "anyone signed in here");
            },
            () => {
              who.reset();
              message.value = "";
              changed();
            },
          );
        },
      },
      h("h3", null, "Invite someone"),
      who.el,
      field("Role", role),
      field("Message (optional)", message),
      problem,
      submit,
    ),
    created,
  );
}

function projectRow(p: Project): HTMLElement {
  const swatch = h("span", { class: "swatch", "aria-hidden": "true" });
  swatch.style.backgroundColor = p.color;
  return h(
    "li",
    { class: "group-row", "data-project-id": p.id },
    swatch,
    h("a", { href: `#/projects/${encodeURIComponent(p.id)}` }, h("span", { class: "group-name" }, p.name)),
    " ",
    chip("project-status", "project_status", p.status),
    " ",
    h("span", { class: "muted" }, `${p.memberCount} member${p.memberCount === 1 ? "" : "s"}`),
  );
}

// assignForm offers the projects the operator leads that are not this
// team's yet (a project of another team is refused by the server, which says so).
function assignForm(team: Team, assigned: Project[], changed: () => void): HTMLElement {
  const slot = new Region("Assign a project");
  void slot.load(async () => {
    const res = await api.projects.listProjects({ limit: 100 });
    const have = new Set(assigned.map((p) => p.id));
    const mine = res.projects.filter((p) => p.role === ProjectRole.Lead && !have.has(p.id));
    if (mine.length === 0) return h("p", { class: "hint" }, "You lead no other project to assign: create one in Projects.");
    const select = h(
      "select",
      { name: "projectId" },
      mine.map((p) => h("option", { value: p.id }, p.teamId ? `${p.name} (another team's)` : p.name)),
    );
    const problem = h("div", { class: "form-status" });
    const submit = h("button", { type: "submit" }, "Assign project");
    return h(
      "form",
      {
        class: "key-form",
        "aria-label": "Assign a project",
        onsubmit: (e: Event) => {
          e.preventDefault();
          void act(
            submit,
            problem,
            async () => {
              const res = await api.teams.assignTeamProject({ id: team.id, projectId: select.value });
              const n = res.added;
              toast(`Assigned ${res.project?.name ?? "the project"} to ${team.name}: ${n} member${n === 1 ? "" : "s"} joined it.`);
              announce("activity");
            },
            changed,
          );
        },
      },
      field("Project you lead", select),
      problem,
      submit,
    );
  });
  return h("div", null, h("h3", null, "Assign a project"), slot.el);
}

function teamDetail(res: GetTeamResponse, who: LoggedIn | null, changed: () => void): HTMLElement {
  const team = res.team!;
  const manager = team.role === TeamRole.Owner || team.role === TeamRole.Admin;
  const isMe = (m: TeamMember) => !!who && !m.connectionId && !!m.username && m.username === who.username;
  const conns = manager ? activeConnections() : Promise.resolve([]);
  const left = (gone: boolean) => {
    if (gone) location.hash = "#/teams";
    else changed();
  };
  // The invites load on their own: a new invite reloads them without
  // replacing the form, whose once-shown link must stay until dismissed.
  const invites = new Region("Invites");
  const loadInvites = () =>
    invites.load(async () => {
      const [list, known] = await Promise.all([api.teams.listTeamInvites({ id: team.id }).then((r) => r.invites), conns]);
      return list.length === 0
        ? emptyState("No invites yet.")
        : h("ul", { class: "member-list", "aria-label": "Invites" }, list.map((i) => inviteRow(i, res.members, known)));
    });
  void loadInvites();
  const problem = h("div", { class: "form-status" });
  const remove =
    team.role === TeamRole.Owner &&
    confirmStep(
      "Delete team",
      { ask: `Delete ${team.name}? Its projects stay.`, yes: "Delete the team", no: "Keep it" },
      () =>
        act(null, problem, () => api.teams.deleteTeam({ id: team.id }), () => {
          toast(`Deleted the team ${team.name}.`);
          announce("activity");
          location.hash = "#/teams";
        }),
    );
  return h(
    "article",
    { class: "team-detail", "aria-labelledby": "team-title" },
    h("h2", { id: "team-title", tabindex: -1 }, team.name),
    facts("Team", [
      ["Handle", `@${team.handle}`],
      ["Your role", team.role ? termLabel("team_role", team.role) : null],
      ["Visibility", termLabel("team_visibility", team.visibility)],
      ["Members", String(team.memberCount)],
      ["Description", team.description || null],
      ["Profile", h("a", { href: `#/teams/${encodeURIComponent(team.id)}/profile` }, "View the team's profile")],
      ["Created", timeOf(team.createdAt)],
    ]),
    (res.subscription || !team.isSelfHosted) && subscriptionPanel(team, res.subscription, changed),
    h(
      "section",
      { class: "panel", "aria-labelledby": "team-members" },
      h("h3", { id: "team-members" }, "Members"),
      h("ul", { class: "member-list", "aria-label": "Members" }, res.members.map((m) => memberRow(team, m, isMe(m), left))),
      manager && addMemberForm(team, conns, changed),
    ),
    h(
      "section",
      { class: "panel", "aria-labelledby": "team-invites" },
      h("h3", { id: "team-invites" }, "Invites"),
      invites.el,
      manager && createInviteForm(team, conns, () => void loadInvites()),
    ),
    h(
      "section",
      { class: "panel", "aria-labelledby": "team-projects" },
      h("h3", { id: "team-projects" }, "Projects"),
      res.projects.length === 0
        ? emptyState("No project is assigned to this team.")
        : h("ul", { class: "group-list", "aria-label": "Assigned projects" }, res.projects.map(projectRow)),
      manager && assignForm(team, res.projects, changed),
    ),
    remove && h("div", { class: "delete-wrap" }, remove, problem),
  );
}

export function teamsView(who: LoggedIn | null, id?: string): View {
  let offset = 0;
  const list = new Region("Teams");
  const side = new Region("Team");
  const formSlot = h("div");

  const load = () =>
    list.load(async () => {
      const res = await api.teams.listTeams({ limit: pageSize, offset });
      const p = res.pagination;
      if (res.teams.length === 0 && offset > 0) {
        offset = 0;
        queueMicrotask(load);
      }
      if (res.teams.length === 0) return emptyState("You are in no team yet: create one, or open an invite link someone sent you.");
      return [
        h("ul", { class: "group-list", "aria-label": "Your teams" }, res.teams.map(teamRow)),
        p &&
          pager({ offset: p.offset, limit: p.limit, total: p.total, hasMore: p.hasMore }, (o) => {
            offset = o;
            void load();
          }, "teams"),
      ];
    });

  let focusTitle = true;
  const loadDetail = () => {
    if (!id) return;
    const teamId = id;
    void side.load(async () => {
      const res = await api.teams.getTeam({ id: teamId });
      if (!res.team) throw new Error("The team was not found.");
      const d = teamDetail(res, who, loadDetail);
      if (focusTitle) {
        focusTitle = false;
        queueMicrotask(() => d.querySelector<HTMLElement>("#team-title")?.focus());
      }
      return d;
    });
  };

  const newButton = h(
    "button",
    {
      type: "button",
      onclick: () =>
        replace(
          formSlot,
          newTeamForm(
            (newId) => {
              replace(formSlot);
              if (newId) location.hash = `#/teams/${encodeURIComponent(newId)}`;
              else void load();
            },
            () => replace(formSlot),
          ),
        ),
    },
    "New team",
  );

  const el = h(
    "div",
    { class: "view teams" },
    h("div", { class: "view-head" }, h("h1", null, "Teams"), !id && newButton),
    formSlot,
    id
      ? h("div", { class: "group-detail" }, h("a", { class: "back", href: "#/teams" }, "← All teams"), side.el)
      : list.el,
  );
  if (id) loadDetail();
  else void load();
  return { el, unmount: () => {} };
}
