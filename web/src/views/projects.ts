// Projects (ProjectService): the operator's projects, a new project (its
// name, description, color, visibility and team), and a project's detail: its
// members grouped by role (and how each joined: directly or through the
// team), its cards as a small board by card status, its pending invites, an
// invite by email or to one of the operator's connections (the lead: the
// invitee finds it in their queue, here or on their instance) and a member
// added directly the same two ways (the lead or a contributor). A remote
// member (a connection's peer) is named with their instance.
import { api } from "../api";
import { h, replace, uid } from "../dom";
import type { KanbanCard } from "../gen/switchboard/v1/kanban_pb";
import type { NetworkConnection } from "../gen/switchboard/v1/network_pb";
import type { GetProjectResponse, Project, ProjectInvite, ProjectMember } from "../gen/switchboard/v1/projects_pb";
import { announce, onRefresh } from "../refresh";
import { Region, act, cardStatuses, chip, confirmStep, emptyState, facts, pager, timeOf, toast, type View } from "../ui";
import { termLabel, terms } from "../vocabulary";
import type { LoggedIn } from "./login";
import { ProjectRole, ProjectVisibility } from "../gen/vocabulary_terms";
import { memberName } from "./profile";
import { activeConnections, hostOf, peerLabel, remoteLabel, targetPicker } from "./targets";

const pageSize = 20;
const defaultColor = "#6366F1";

function field(title: string, control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement): HTMLElement {
  control.id ||= uid("project");
  return h("div", { class: "field" }, h("label", { for: control.id }, title), control);
}

// The roles a member can be given: a project has one lead, its creator.
function roleSelect(): HTMLSelectElement {
  return h(
    "select",
    { name: "role" },
    terms("project_role")
      .filter((t) => t.value !== ProjectRole.Lead)
      .map((t) => h("option", { value: t.value, selected: t.value === ProjectRole.Contributor }, t.label)),
  );
}

function swatch(color: string): HTMLElement {
  const s = h("span", { class: "swatch", "aria-hidden": "true" });
  s.style.backgroundColor = color;
  return s;
}

function projectRow(p: Project, teams: Map<string, string>): HTMLElement {
  return h(
    "li",
    { class: "group-row", "data-project-id": p.id },
    swatch(p.color),
    h("a", { href: `#/projects/${encodeURIComponent(p.id)}`, "data-focus-key": `project-${p.id}` }, h("span", { class: "group-name" }, p.name)),
    p.teamId && h("span", { class: "muted" }, ` · ${teams.get(p.teamId) ?? "a team"}`),
    h(
      "div",
      { class: "group-sub" },
      p.role && chip("project-role", "project_role", p.role),
      chip("project-status", "project_status", p.status),
      chip("visibility", "project_visibility", p.visibility),
      h("span", { class: "muted" }, `${p.memberCount} member${p.memberCount === 1 ? "" : "s"}`),
    ),
    p.description && h("p", { class: "group-desc" }, p.description),
  );
}

async function teamNames(): Promise<Map<string, string>> {
  try {
    const res = await api.teams.listTeams({ limit: 100 });
    return new Map(res.teams.map((t) => [t.id, t.name]));
  } catch {
    // Without the names, the rows say "a team".
    return new Map();
  }
}

function newProjectForm(teams: Map<string, string>, done: (id: string) => void, cancel: () => void): HTMLElement {
  const name = h("input", { name: "name", required: true, maxlength: 200, autocomplete: "off" });
  const description = h("textarea", { name: "description", rows: 2, maxlength: 5000 });
  const color = h("input", { name: "color", type: "color", value: defaultColor });
  const visibility = h(
    "select",
    { name: "visibility" },
    terms("project_visibility").map((t) => h("option", { value: t.value, selected: t.value === ProjectVisibility.Private }, t.label)),
  );
  const team = h(
    "select",
    { name: "teamId" },
    h("option", { value: "" }, "No team"),
    [...teams].map(([id, n]) => h("option", { value: id }, n)),
  );
  const problem = h("div", { class: "form-status" });
  const submit = h("button", { type: "submit" }, "Create project");
  const form = h(
    "form",
    {
      class: "panel key-form",
      "aria-label": "New project",
      onsubmit: (e: Event) => {
        e.preventDefault();
        let id = "";
        void act(
          submit,
          problem,
          async () => {
            const res = await api.projects.createProject({
              name: name.value.trim(),
              description: description.value.trim() || undefined,
              color: color.value.toUpperCase(),
              visibility: visibility.value,
              teamId: team.value || undefined,
            });
            id = res.project?.id ?? "";
            toast(`Created the project ${res.project?.name ?? ""}.`);
            announce("activity");
          },
          () => done(id),
        );
      },
    },
    h("h2", null, "New project"),
    field("Name", name),
    field("Description (optional)", description),
    field("Color", color),
    field("Visibility", visibility),
    field("Team (optional: its members join as contributors)", team),
    problem,
    h("div", { class: "editor-actions" }, submit, h("button", { type: "button", class: "secondary", onclick: cancel }, "Cancel")),
  );
  queueMicrotask(() => name.focus());
  return form;
}

function memberRow(project: Project, m: ProjectMember, me: boolean, changed: (left: boolean) => void): HTMLElement {
  // A remote member's memberId is their connection's id: never "you".
  const shown = remoteLabel(m.name, m.instanceUrl);
  const problem = h("div", { class: "widget-problem" });
  let control: HTMLElement | null = null;
  const remove = (text: string, ask: string, yes: string, done: string, left: boolean) =>
    confirmStep(
      text,
      { ask, yes, no: "Cancel" },
      () =>
        act(null, problem, () => api.projects.removeProjectMember({ id: project.id, memberId: m.memberId }), () => {
          toast(done);
          announce("activity");
          changed(left);
        }),
      { "aria-label": left ? `Leave ${project.name}` : `Remove ${shown}` },
    );
  if (m.role !== ProjectRole.Lead) {
    if (me) control = remove("Leave", `Leave ${project.name}?`, "Leave the project", `You left ${project.name}.`, true);
    else if (project.role === ProjectRole.Lead)
      control = remove("Remove", `Remove ${shown} from the project?`, "Remove", `Removed ${shown} from ${project.name}.`, false);
  }
  return h(
    "li",
    { class: "member-row", "data-member-id": m.memberId, "data-role": m.role, "data-remote": m.connectionId ? "true" : undefined },
    memberName(m),
    m.instanceUrl && h("span", { class: "member-instance" }, ` · ${hostOf(m.instanceUrl)}`),
    m.username && h("span", { class: "muted" }, ` @${m.username}`),
    me && h("span", { class: "muted" }, " (you)"),
    " ",
    chip("via", "project_member_via", m.via),
    h("div", { class: "muted" }, "Joined ", timeOf(m.joinedAt)),
    control && h("div", { class: "widget-buttons" }, control),
    problem,
  );
}

// membersByRole lists the members under each role of the contract, in its order.
function membersByRole(project: Project, members: ProjectMember[], who: LoggedIn | null, changed: (left: boolean) => void): HTMLElement[] {
  const isMe = (m: ProjectMember) => !!who && !m.connectionId && !!m.username && m.username === who.username;
  return terms("project_role")
    .map((role) => ({ role, of: members.filter((m) => m.role === role.value) }))
    .filter((g) => g.of.length > 0)
    .map(({ role, of }) =>
      h(
        "div",
        { class: "member-group", "data-role": role.value },
        h("h4", null, `${role.label} (${of.length})`),
        h("ul", { class: "member-list", "aria-label": role.label }, of.map((m) => memberRow(project, m, isMe(m), changed))),
      ),
    );
}

// board shows the project's cards in one column per card status that has any.
function board(cards: KanbanCard[]): HTMLElement {
  if (cards.length === 0) return emptyState("No card is filed under this project yet.");
  return h(
    "div",
    { class: "columns project-board" },
    cardStatuses
      .map((s) => ({ s, of: cards.filter((c) => c.status === s) }))
      .filter((c) => c.of.length > 0)
      .map(({ s, of }) =>
        h(
          "section",
          { class: "column", "data-status": s, "aria-label": termLabel("card_status", s) },
          h("div", { class: "column-head" }, h("h4", null, termLabel("card_status", s)), h("span", { class: "count" }, String(of.length))),
          h(
            "ul",
            { class: "cards" },
            of.map((c) =>
              h(
                "li",
                { class: `kcard priority-${c.priority}`, "data-id": c.id },
                h("a", { href: `#/board?card=${encodeURIComponent(c.id)}` }, c.title),
                h("div", { class: "chips" }, chip("priority", "priority", c.priority)),
              ),
            ),
          ),
        ),
      ),
  );
}

function inviteTarget(i: ProjectInvite, conns: NetworkConnection[]): string {
  if (i.email) return i.email;
  if (i.userId) return "A user of this instance";
  const c = conns.find((x) => x.id === i.connectionId);
  return c ? peerLabel(c) : "A connection's peer";
}

function inviteRow(i: ProjectInvite, conns: NetworkConnection[]): HTMLElement {
  return h(
    "li",
    { class: "invite-row", "data-invite-id": i.id, "data-status": i.status },
    h("span", { class: "member-name" }, inviteTarget(i, conns)),
    " ",
    chip("project-role", "project_role", i.role),
    " ",
    chip("invite", "invite_status", i.status),
    h("div", { class: "muted" }, "Sent ", timeOf(i.createdAt)),
    i.message && h("p", { class: "network-message" }, i.message),
  );
}

function inviteForm(project: Project, conns: NetworkConnection[], changed: () => void): HTMLElement {
  const who = targetPicker({ emailTitle: "Their email", emailRequired: true, connections: Promise.resolve(conns) });
  const role = roleSelect();
  const message = h("input", { name: "message", maxlength: 2000, autocomplete: "off" });
  const problem = h("div", { class: "form-status" });
  const submit = h("button", { type: "submit" }, "Send invite");
  return h(
    "form",
    {
      class: "key-form",
      "aria-label": "Invite to the project",
      onsubmit: (e: Event) => {
        e.preventDefault();
        void act(
          submit,
          problem,
          async () => {
            const target = who.value();
            const named = who.label();
            await api.projects.inviteToProject({ id: project.id, ...target, role: role.value, message: message.value.trim() || undefined });
            toast(
              target.connectionId
                ? `Invited ${named} to ${project.name}: it waits in their Now on their instance.`
                : `Invited ${named} to ${project.name}: it waits in their Now.`,
            );
            announce("activity");
          },
          () => {
            who.reset();
            message.value = "";
            changed();
          },
        );
      },
    },
    h("h4", null, "Invite someone"),
    who.el,
    field("Role", role),
    field("Message (optional)", message),
    problem,
    submit,
  );
}

function addMemberForm(project: Project, conns: NetworkConnection[], changed: () => void): HTMLElement {
  const who = targetPicker({ emailTitle: "Their email here", emailRequired: true, connections: Promise.resolve(conns) });
  const role = roleSelect();
  const problem = h("div", { class: "form-status" });
  const submit = h("button", { type: "submit" }, "Add member");
  return h(
    "form",
    {
      class: "key-form",
      "aria-label": "Add a project member",
      onsubmit: (e: Event) => {
        e.preventDefault();
        void act(
          submit,
          problem,
          async () => {
            const named = who.label();
            const res = await api.projects.addProjectMember({ id: project.id, ...who.value(), role: role.value });
            const m = res.member;
            toast(`${m ? remoteLabel(m.name, m.instanceUrl) : named} joined ${project.name}.`);
            announce("activity");
          },
          () => {
            who.reset();
            changed();
          },
        );
      },
    },
    h("h4", null, "Add a member directly"),
    who.el,
    field("Role", role),
    problem,
    submit,
  );
}

function projectDetail(
  res: GetProjectResponse,
  teams: Map<string, string>,
  conns: NetworkConnection[],
  who: LoggedIn | null,
  changed: () => void,
): HTMLElement {
  const project = res.project!;
  const lead = project.role === ProjectRole.Lead;
  const adds = lead || project.role === ProjectRole.Contributor;
  const left = (gone: boolean) => {
    if (gone) location.hash = "#/projects";
    else changed();
  };
  const title = h("h2", { id: "project-title", tabindex: -1 }, swatch(project.color), project.name);
  return h(
    "article",
    { class: "project-detail", "aria-labelledby": "project-title" },
    title,
    facts("Project", [
      ["Your role", project.role ? termLabel("project_role", project.role) : "Not a member: you read it through its visibility"],
      ["Status", termLabel("project_status", project.status)],
      ["Visibility", termLabel("project_visibility", project.visibility)],
      ["Team", project.teamId ? h("a", { href: `#/teams/${encodeURIComponent(project.teamId)}` }, teams.get(project.teamId) ?? "The team") : null],
      ["Description", project.description || null],
      ["Created", timeOf(project.createdAt)],
    ]),
    h(
      "section",
      { class: "panel", "aria-labelledby": "project-members" },
      h("h3", { id: "project-members" }, `Members (${res.members.length})`),
      membersByRole(project, res.members, who, left),
      adds && addMemberForm(project, conns, changed),
    ),
    h(
      "section",
      { class: "panel", "aria-labelledby": "project-cards" },
      h("h3", { id: "project-cards" }, `Cards (${res.cards.length})`),
      board(res.cards),
    ),
    project.role &&
      h(
        "section",
        { class: "panel", "aria-labelledby": "project-invites" },
        h("h3", { id: "project-invites" }, "Pending invites"),
        res.invites.length === 0
          ? emptyState("No invite waits for an answer.")
          : h("ul", { class: "member-list", "aria-label": "Pending invites" }, res.invites.map((i) => inviteRow(i, conns))),
        lead && inviteForm(project, conns, changed),
      ),
  );
}

export function projectsView(params: URLSearchParams, who: LoggedIn | null, id?: string): View {
  let status = params.get("status") ?? "";
  let offset = 0;
  const list = new Region("Projects");
  const side = new Region("Project");
  const formSlot = h("div");
  let teams: Promise<Map<string, string>> = teamNames();

  const load = () =>
    list.load(async () => {
      const [res, names] = await Promise.all([api.projects.listProjects({ status, limit: pageSize, offset }), teams]);
      const p = res.pagination;
      if (res.projects.length === 0 && offset > 0) {
        offset = 0;
        queueMicrotask(load);
      }
      if (res.projects.length === 0) return emptyState(status ? "No projects match." : "You are in no project yet.");
      return [
        h("ul", { class: "group-list", "aria-label": "Your projects" }, res.projects.map((x) => projectRow(x, names))),
        p &&
          pager({ offset: p.offset, limit: p.limit, total: p.total, hasMore: p.hasMore }, (o) => {
            offset = o;
            void load();
          }, "projects"),
      ];
    });

  let focusTitle = true;
  const loadDetail = () => {
    if (!id) return;
    const projectId = id;
    void side.load(async () => {
      const [res, names, conns] = await Promise.all([api.projects.getProject({ id: projectId }), teams, activeConnections()]);
      if (!res.project) throw new Error("The project was not found.");
      const d = projectDetail(res, names, conns, who, loadDetail);
      if (focusTitle) {
        focusTitle = false;
        queueMicrotask(() => d.querySelector<HTMLElement>("#project-title")?.focus());
      }
      return d;
    });
  };

  const statusId = uid("status");
  const statusSelect = h(
    "select",
    {
      id: statusId,
      name: "status",
      onchange: () => {
        status = statusSelect.value;
        offset = 0;
        history.replaceState(null, "", `#/projects${status ? `?status=${encodeURIComponent(status)}` : ""}`);
        void load();
      },
    },
    h("option", { value: "" }, "Any"),
    terms("project_status").map((t) => h("option", { value: t.value, selected: t.value === status }, t.label)),
  );

  const newButton = h(
    "button",
    {
      type: "button",
      onclick: async () => {
        const names = await teams;
        replace(
          formSlot,
          newProjectForm(
            names,
            (newId) => {
              replace(formSlot);
              if (newId) location.hash = `#/projects/${encodeURIComponent(newId)}`;
              else void load();
            },
            () => replace(formSlot),
          ),
        );
      },
    },
    "New project",
  );

  const el = h(
    "div",
    { class: "view projects" },
    h("div", { class: "view-head" }, h("h1", null, "Projects"), !id && newButton),
    formSlot,
    id
      ? h("div", { class: "group-detail" }, h("a", { class: "back", href: "#/projects" }, "← All projects"), side.el)
      : h(
          "div",
          null,
          h(
            "form",
            { class: "filters", role: "search", onsubmit: (e: Event) => e.preventDefault() },
            h("div", { class: "field inline" }, h("label", { for: statusId }, "Status"), statusSelect),
          ),
          list.el,
        ),
  );
  const refresh = () => {
    if (id) loadDetail();
    else void load();
  };
  refresh();
  // A card filed under the project, or an invite answered from a queue item,
  // changes the detail; a team joined changes the names.
  const offBoard = onRefresh("board", refresh);
  const offQueue = onRefresh("queue", refresh);
  const offActivity = onRefresh("activity", () => {
    teams = teamNames();
  });
  return {
    el,
    unmount() {
      offBoard();
      offQueue();
      offActivity();
    },
  };
}
