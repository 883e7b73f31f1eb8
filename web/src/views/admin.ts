// Admin: what this instance's admin oversees beyond their own work: the
// task economy's open disputes, the store listings waiting for review and
// the federation audit log, and the operator network's switch and allowlist
// (networkSettings.ts). The tab
// shows only for the admin (main.ts); a member who opens it anyway is
// answered permission denied by each section's server call.
import { h } from "../dom";
import type { View } from "../ui";
import { agentActivitySection, myAgentsSection } from "./agentActivity";
import { disputesSection } from "./disputes";
import { federationAuditSection } from "./federationAudit";
import { listingReviewsSection } from "./listingReviews";
import { networkSettingsSection } from "./networkSettings";

export function adminView(): View {
  const el = h("div", { class: "view admin" }, h("h1", null, "Admin"), disputesSection(), listingReviewsSection(), agentActivitySection(), myAgentsSection(), federationAuditSection(), networkSettingsSection());
  return { el, unmount() {} };
}
