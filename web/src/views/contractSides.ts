// The two sides of an engagement as the pages name them: the client and the
// provider, a user of this instance (a link to their profile) or a
// connection's peer (named with their instance).
import { h } from "../dom";
import type { Contract, ContractParty } from "../gen/switchboard/v1/economy_pb";
import { ContractRole } from "../gen/vocabulary_terms";
import { termLabel } from "../vocabulary";
import { memberName } from "./profile";
import { hostOf } from "./targets";

// partyEl names a side: a link to a local user's profile, a peer with
// their instance.
export function partyEl(p: ContractParty | undefined): HTMLElement {
  if (!p) return h("span", { class: "member-name" }, "Unknown");
  return h(
    "span",
    null,
    memberName({ name: p.name, userId: p.userId, connectionId: p.connectionId }),
    p.instanceUrl && h("span", { class: "member-instance" }, ` · ${hostOf(p.instanceUrl)}`),
  );
}

// nameOf is the name of a contract's side.
export function nameOf(c: Contract, side: string): string {
  return (side === ContractRole.Client ? c.client : c.provider)?.name || termLabel("contract_role", side);
}

// otherSide is the side the caller is not.
export function otherSide(c: Contract): string {
  return c.role === ContractRole.Client ? ContractRole.Provider : ContractRole.Client;
}
