// The invite page (#/invite/<token>): what a team invite link invites to,
// readable signed out (PreviewTeamInvite needs no session: the team's name
// and handle, who invites, the role, their message and when it expires), and
// Accept / Decline once signed in. An expired invite and one already used
// say so plainly.
import { Code, ConnectError } from "@connectrpc/connect";
import { api, errorCode, errorText, isUnauthenticated, paymentRequired } from "../api";
import { h, replace } from "../dom";
import type { PreviewTeamInviteResponse } from "../gen/switchboard/v1/teams_pb";
import { announce } from "../refresh";
import { facts, reportUnauthenticated, timeOf, toast, type View } from "../ui";
import { termLabel } from "../vocabulary";
import { outOfSeatsText } from "./teams";
import { InviteAction } from "../gen/vocabulary_terms";

// refusal puts the invite refusals in plain words: 404 unknown, 410 expired
// (failed_precondition with the code INVITE_EXPIRED), 409 already answered.
function refusal(e: unknown): string {
  const ce = ConnectError.from(e);
  if (errorCode(e) === "INVITE_EXPIRED" || /INVITE_EXPIRED/.test(ce.rawMessage)) return "This invite has expired.";
  const seats = paymentRequired(e);
  if (seats) return `${outOfSeatsText(seats)}. Ask the team's owner to subscribe, then accept again.`;
  if (ce.code === Code.AlreadyExists) return "This invite was already used.";
  if (ce.code === Code.NotFound) return "This invite link is not valid: check that it was copied whole.";
  return errorText(e);
}

function previewEl(p: PreviewTeamInviteResponse): HTMLElement {
  return h(
    "div",
    { class: "invite-preview" },
    h("p", { class: "invite-lead" }, `${p.inviterName || "Someone"} invites you to join the team `, h("strong", null, p.teamName), "."),
    facts("The invite", [
      ["Team", p.teamName],
      ["Handle", `@${p.teamHandle}`],
      ["Invited by", p.inviterName],
      ["Your role", termLabel("team_role", p.role)],
      ["Message", p.message || null],
      ["Expires", timeOf(p.expiresAt)],
    ]),
  );
}

// inviteView is the page; signIn is set when no one is signed in.
export function inviteView(token: string, signIn?: () => void): View {
  const body = h("div", { class: "region", "aria-label": "The invite", "aria-busy": "true" }, h("p", { class: "loading", role: "status" }, "Loading…"));
  const outcome = h("div", { class: "invite-outcome", role: "status" });
  const plain = (text: string) => h("p", { class: "error invite-refusal", role: "alert" }, text);

  const answer = async (action: string, buttons: HTMLButtonElement[]) => {
    buttons.forEach((b) => (b.disabled = true));
    replace(outcome);
    try {
      const res = await api.teams.answerTeamInvite({ token, action });
      if (action === InviteAction.Accept && res.team) {
        toast(`You joined ${res.team.name}.`);
        replace(
          outcome,
          h("p", { class: "notice" }, `You joined ${res.team.name} as ${termLabel("team_role", res.invite?.role ?? "")}. `),
          h("a", { href: `#/teams/${encodeURIComponent(res.team.id)}` }, `Open ${res.team.name}`),
        );
      } else {
        toast("You declined the invite.");
        replace(outcome, h("p", { class: "notice" }, "You declined the invite."));
      }
      buttons.forEach((b) => (b.hidden = true));
      announce("activity");
    } catch (e) {
      if (isUnauthenticated(e)) reportUnauthenticated();
      replace(outcome, plain(refusal(e)));
      buttons.forEach((b) => (b.disabled = false));
    }
  };

  const load = async () => {
    try {
      const p = await api.teams.previewTeamInvite({ token });
      let controls: HTMLElement;
      if (signIn) {
        controls = h(
          "div",
          { class: "invite-actions" },
          h("p", null, "Sign in to accept or decline this invite."),
          h("button", { type: "button", onclick: signIn }, "Sign in to accept"),
        );
      } else {
        const accept: HTMLButtonElement = h("button", { type: "button", onclick: () => void answer(InviteAction.Accept, [accept, decline]) }, "Accept");
        const decline: HTMLButtonElement = h(
          "button",
          { type: "button", class: "secondary", onclick: () => void answer(InviteAction.Decline, [accept, decline]) },
          "Decline",
        );
        controls = h("div", { class: "invite-actions widget-buttons" }, accept, decline);
      }
      replace(body, previewEl(p), controls, outcome);
    } catch (e) {
      replace(
        body,
        plain(refusal(e)),
        signIn ? h("button", { type: "button", class: "secondary", onclick: signIn }, "Sign in") : h("a", { href: "#/teams" }, "Your teams"),
      );
    } finally {
      body.removeAttribute("aria-busy");
    }
  };

  const el = h("div", { class: "view invite" }, h("h1", null, "Team invite"), h("section", { class: "panel" }, body));
  void load();
  return { el, unmount: () => {} };
}
