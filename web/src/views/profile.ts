// Profiles (ProfileService): a user's page (#/profile/<userId>) and a team's
// (#/teams/<id>/profile), readable signed out when public. A profile the
// caller may not see answers 404, as one that does not exist: both read
// "This profile is private". A user's page shows their name, username,
// avatar, bio, what they offer as a provider (capabilities), their standing
// in the task economy (document 2's reputation score and average rating;
// "No reviews yet" before any review), and their public teams and projects.
// Another signed-in user may hire them from it (hire.ts).
import { api, isNotFound } from "../api";
import { h } from "../dom";
import type { GetProfileResponse, GetTeamProfileResponse, ProfileProject, ProfileTeam } from "../gen/switchboard/v1/profiles_pb";
import type { ProviderCapability } from "../gen/switchboard/v1/network_exchange_pb";
import type { UserReputation } from "../gen/switchboard/v1/store_review_pb";
import { Region, chip, emptyState, facts, type View } from "../ui";
import { termLabel } from "../vocabulary";
import { hireButton } from "./hire";
import type { LoggedIn } from "./login";

// An avatar is shown only from where the page's policy lets images come
// (this server, or a data: image); any other is left to the initials.
function avatar(src: string | undefined, name: string): HTMLElement {
  if (src && (src.startsWith("/") || src.startsWith("data:image/"))) {
    return h("img", { class: "profile-avatar", src, alt: "", width: 64, height: 64 });
  }
  const initials = name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((w) => w[0]!.toUpperCase())
    .join("");
  return h("span", { class: "profile-avatar initials", "aria-hidden": "true" }, initials || "?");
}

function privateProfile(title: string): HTMLElement[] {
  return [h("h1", { id: "profile-title", tabindex: -1 }, title), h("p", { class: "notice profile-private", role: "status" }, "This profile is private")];
}

function capabilityRow(c: ProviderCapability): HTMLElement {
  const price =
    c.price !== undefined && c.pricingModel
      ? `${termLabel("capability_pricing_model", c.pricingModel)}: ${c.price} ${c.currency ?? ""}${c.unit ? ` per ${c.unit}` : ""}`.trim()
      : c.pricingModel
        ? termLabel("capability_pricing_model", c.pricingModel)
        : "";
  return h(
    "li",
    { class: "group-row", "data-capability-id": c.id },
    h("span", { class: "group-name" }, termLabel("job_task_type", c.taskType)),
    c.skills.length > 0 && h("span", { class: "muted" }, ` · ${c.skills.join(", ")}`),
    c.description && h("p", null, c.description),
    (price || c.turnaroundDays) &&
      h("div", { class: "muted" }, [price, c.turnaroundDays ? `${c.turnaroundDays} day${c.turnaroundDays === 1 ? "" : "s"} turnaround` : ""].filter(Boolean).join(" · ")),
  );
}

function reputation(r: UserReputation | undefined): HTMLElement {
  if (!r) return emptyState("No reviews yet");
  const stars = (n: number | undefined) => (n === undefined ? null : `${n.toFixed(1)} of 5`);
  return facts("Reputation", [
    ["Reputation score", `${Math.round(r.reputationScore)} of 100`],
    ["Average rating", stars(r.avgRating)],
    ["In the task economy", termLabel("economy_role", r.taskEconomyRole)],
    ["Reviews received", String(r.reviewsReceived)],
  ]);
}

function teamRow(t: ProfileTeam): HTMLElement {
  return h(
    "li",
    { class: "group-row", "data-team-id": t.id },
    h("a", { href: `#/teams/${encodeURIComponent(t.id)}/profile` }, h("span", { class: "group-name" }, t.name)),
    " ",
    h("span", { class: "muted" }, `@${t.handle}`),
    t.description && h("p", { class: "muted" }, t.description),
  );
}

function projectRow(p: ProfileProject): HTMLElement {
  const swatch = h("span", { class: "swatch", "aria-hidden": "true" });
  swatch.style.backgroundColor = p.color;
  return h(
    "li",
    { class: "group-row", "data-project-id": p.id },
    swatch,
    h("span", { class: "group-name" }, p.name),
    " ",
    chip("project-status", "project_status", p.status),
    p.description && h("p", { class: "muted" }, p.description),
  );
}

function section(id: string, title: string, body: HTMLElement): HTMLElement {
  return h("section", { class: "panel", "aria-labelledby": id }, h("h2", { id }, title), body);
}

// hire is the Hire button and its form's place, for a signed-in user on
// someone else's page; the task type of their first capability comes chosen.
function hire(p: GetProfileResponse, who: LoggedIn | null): [HTMLElement | null, HTMLElement | null] {
  if (!who || who.username === p.username) return [null, null];
  const slot = h("div", { class: "hire-slot" });
  const first = p.capabilities[0];
  const button = hireButton({ userId: p.id, name: p.name || p.username }, { taskType: first?.taskType }, slot, {
    "aria-label": `Hire ${p.name || p.username}`,
  });
  return [h("div", { class: "profile-actions" }, button), slot];
}

function userProfile(p: GetProfileResponse, who: LoggedIn | null): HTMLElement[] {
  const [hireAction, hireSlot] = hire(p, who);
  return [
    h(
      "div",
      { class: "profile-head" },
      avatar(p.avatar, p.name),
      h("div", null, h("h1", { id: "profile-title", tabindex: -1 }, p.name || p.username), h("p", { class: "muted profile-username" }, `@${p.username}`)),
      hireAction,
    ),
    ...(hireSlot ? [hireSlot] : []),
    p.bio ? h("p", { class: "profile-bio" }, p.bio) : h("p", { class: "muted profile-bio" }, "No bio yet."),
    section(
      "profile-capabilities",
      "Capabilities",
      p.capabilities.length === 0
        ? emptyState("Offers no capability yet.")
        : h("ul", { class: "group-list", "aria-label": "Capabilities" }, p.capabilities.map(capabilityRow)),
    ),
    section("profile-reputation", "Reputation", reputation(p.reputation)),
    section(
      "profile-teams",
      "Teams",
      p.teams.length === 0 ? emptyState("In no public team.") : h("ul", { class: "group-list", "aria-label": "Teams" }, p.teams.map(teamRow)),
    ),
    section(
      "profile-projects",
      "Projects",
      p.projects.length === 0
        ? emptyState("In no public project.")
        : h("ul", { class: "group-list", "aria-label": "Projects" }, p.projects.map(projectRow)),
    ),
  ];
}

function teamProfile(p: GetTeamProfileResponse): HTMLElement[] {
  const t = p.team!;
  return [
    h(
      "div",
      { class: "profile-head" },
      avatar(t.avatarUrl, t.name),
      h("div", null, h("h1", { id: "profile-title", tabindex: -1 }, t.name), h("p", { class: "muted profile-username" }, `@${t.handle}`)),
    ),
    t.description ? h("p", { class: "profile-bio" }, t.description) : null,
    facts("Team", [
      ["Visibility", termLabel("team_visibility", t.visibility)],
      ["Members", String(p.memberCount)],
    ]),
    section(
      "profile-projects",
      "Projects",
      p.projects.length === 0
        ? emptyState("No public project.")
        : h("ul", { class: "group-list", "aria-label": "Projects" }, p.projects.map(projectRow)),
    ),
  ].filter((x): x is HTMLElement => x !== null);
}

function profilePage(title: string, load: () => Promise<HTMLElement[]>): View {
  const region = new Region(title);
  void region.load(async () => {
    try {
      return await load();
    } catch (e) {
      if (isNotFound(e)) return privateProfile(title);
      throw e;
    }
  });
  return { el: h("div", { class: "view profile" }, region.el), unmount: () => {} };
}

// profileView is a user's page; who is the signed-in reader (null signed out).
export function profileView(userId: string, who: LoggedIn | null = null): View {
  return profilePage("Profile", async () => userProfile(await api.profiles.getProfile({ userId }), who));
}

// teamProfileView is a team's page.
export function teamProfileView(id: string): View {
  return profilePage("Team profile", async () => {
    const p = await api.profiles.getTeamProfile({ id });
    if (!p.team) throw new Error("The team was not found.");
    return teamProfile(p);
  });
}

// memberName is a member's name in a member list: a link to their profile
// for a user of this instance, plain text for a connection's peer.
export function memberName(m: { name: string; userId?: string; connectionId?: string }): HTMLElement {
  if (m.userId && !m.connectionId) {
    return h("a", { class: "member-name", href: `#/profile/${encodeURIComponent(m.userId)}` }, m.name);
  }
  return h("span", { class: "member-name" }, m.name);
}
