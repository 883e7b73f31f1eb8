// The dashboard talks to the server only through Connect-Web, with the clients
// generated from proto/ (web/src/gen, by protoc-gen-es in scripts/generate).
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import { timestampDate, timestampFromDate, type Timestamp } from "@bufbuild/protobuf/wkt";

import { AccountService } from "./gen/switchboard/v1/accounts_pb";
import { AssistantChatService, AssistantService } from "./gen/switchboard/v1/assistant_pb";
import { CalendarService, NowService } from "./gen/switchboard/v1/calendar_pb";
import { CapabilityService } from "./gen/switchboard/v1/capabilities_pb";
import { EventService, SharedChatService } from "./gen/switchboard/v1/chat_pb";
import { ContactService } from "./gen/switchboard/v1/contacts_pb";
import { DeveloperService } from "./gen/switchboard/v1/developer_pb";
import { DeveloperPortalService } from "./gen/switchboard/v1/developer_portal_pb";
import { DocumentService } from "./gen/switchboard/v1/documents_pb";
import { EconomyAdminService, EconomyService, JobMarketService } from "./gen/switchboard/v1/economy_pb";
import { ErrorInfoSchema } from "./gen/switchboard/v1/errors_pb";
import { FederationAdminService, FederationService } from "./gen/switchboard/v1/federation_pb";
import { FederationAuditService } from "./gen/switchboard/v1/federation_audit_pb";
import { BoardCortexService } from "./gen/switchboard/v1/board_pb";
import { KanbanService } from "./gen/switchboard/v1/kanban_pb";
import { KeyService } from "./gen/switchboard/v1/keys_pb";
import { InboundWebhookService } from "./gen/switchboard/v1/inbound_webhooks_pb";
import { BehaviorSignalService, LearningService } from "./gen/switchboard/v1/learnings_pb";
import { NetworkExchangeService } from "./gen/switchboard/v1/network_exchange_pb";
import { NetworkService } from "./gen/switchboard/v1/network_pb";
import { NetworkRelayService } from "./gen/switchboard/v1/network_relay_pb";
import { OnboardingService } from "./gen/switchboard/v1/onboarding_pb";
import { ProfileService } from "./gen/switchboard/v1/profiles_pb";
import { ProjectService } from "./gen/switchboard/v1/projects_pb";
import { QueueService } from "./gen/switchboard/v1/queue_pb";
import { SettingsService } from "./gen/switchboard/v1/settings_pb";
import { StoreAdminService } from "./gen/switchboard/v1/store_admin_pb";
import { SpriteService } from "./gen/switchboard/v1/sprite_pb";
import { StoreExecutionService } from "./gen/switchboard/v1/store_execution_pb";
import { StoreService } from "./gen/switchboard/v1/store_pb";
import { DashboardService } from "./gen/switchboard/v1/dashboard_pb";
import { TeamService } from "./gen/switchboard/v1/teams_pb";

export const transport = createConnectTransport({
  baseUrl: window.location.origin,
  // Binary protobuf: compact, and independent of the JSON renderings.
  useBinaryFormat: true,
  // Every unary call gives up after 20 s; the event stream opts out (timeoutMs 0).
  defaultTimeoutMs: 20_000,
  // The session is the HttpOnly cookie. Connect-Web sends the
  // Connect-Protocol-Version header on every call, which is what the server's
  // CSRF rule asks of a session caller that changes state.
  fetch: (input, init) => globalThis.fetch(input, { ...init, credentials: "same-origin" }),
});

export const api = {
  accounts: createClient(AccountService, transport),
  assistant: createClient(AssistantService, transport),
  assistantChat: createClient(AssistantChatService, transport),
  calendar: createClient(CalendarService, transport),
  capabilities: createClient(CapabilityService, transport),
  chat: createClient(SharedChatService, transport),
  events: createClient(EventService, transport),
  contacts: createClient(ContactService, transport),
  dashboard: createClient(DashboardService, transport),
  developer: createClient(DeveloperService, transport),
  developerPortal: createClient(DeveloperPortalService, transport),
  documents: createClient(DocumentService, transport),
  economy: createClient(EconomyService, transport),
  jobMarket: createClient(JobMarketService, transport),
  economyAdmin: createClient(EconomyAdminService, transport),
  federation: createClient(FederationService, transport),
  federationAdmin: createClient(FederationAdminService, transport),
  federationAudit: createClient(FederationAuditService, transport),
  kanban: createClient(KanbanService, transport),
  board: createClient(BoardCortexService, transport),
  keys: createClient(KeyService, transport),
  inbound: createClient(InboundWebhookService, transport),
  learnings: createClient(LearningService, transport),
  signals: createClient(BehaviorSignalService, transport),
  network: createClient(NetworkService, transport),
  networkExchange: createClient(NetworkExchangeService, transport),
  networkRelay: createClient(NetworkRelayService, transport),
  now: createClient(NowService, transport),
  onboarding: createClient(OnboardingService, transport),
  profiles: createClient(ProfileService, transport),
  projects: createClient(ProjectService, transport),
  queue: createClient(QueueService, transport),
  settings: createClient(SettingsService, transport),
  sprite: createClient(SpriteService, transport),
  store: createClient(StoreService, transport),
  storeExecution: createClient(StoreExecutionService, transport),
  storeAdmin: createClient(StoreAdminService, transport),
  teams: createClient(TeamService, transport),
};

// errorText is what the server said (its message, without the code prefix).
export function errorText(e: unknown): string {
  const ce = ConnectError.from(e);
  if (ce.code === Code.Unavailable || ce.code === Code.Unknown) {
    if (!ce.rawMessage || /fetch|network/i.test(ce.rawMessage)) return "The server cannot be reached. Check your connection.";
  }
  if (ce.code === Code.DeadlineExceeded) return "The server took too long to answer.";
  return ce.rawMessage || ce.message;
}

export function isUnauthenticated(e: unknown): boolean {
  return e instanceof ConnectError && e.code === Code.Unauthenticated;
}

export function isForbidden(e: unknown): boolean {
  return e instanceof ConnectError && e.code === Code.PermissionDenied;
}

// isNetworkOff is the refusal of a network call while the admin has the
// operator network off (or the caller may not use it).
export function isNetworkOff(e: unknown): boolean {
  return e instanceof ConnectError && (e.code === Code.PermissionDenied || e.code === Code.FailedPrecondition);
}

// errorCode is the machine-readable code a refusal carries in its ErrorInfo
// detail (INVITE_EXPIRED, ALREADY_INVITED, …), or "" when it carries none.
export function errorCode(e: unknown): string {
  if (!(e instanceof ConnectError)) return "";
  return e.findDetails(ErrorInfoSchema).find((d) => d.code)?.code ?? "";
}

// paymentRequired is a team seat's 402 (PAYMENT_REQUIRED): the plan that
// would cover the seats asked for, as the server quotes it; null otherwise.
export function paymentRequired(e: unknown): { plan: string; amountCents: number; currency: string; extraSeats: number } | null {
  if (!(e instanceof ConnectError)) return null;
  const info = e.findDetails(ErrorInfoSchema).find((d) => d.code === "PAYMENT_REQUIRED");
  if (!info) return null;
  const p = info.planPrice;
  return { plan: p?.plan ?? "", amountCents: p?.amountCents ?? 0, currency: p?.currency ?? "", extraSeats: p?.extraSeats ?? 0 };
}

export function isNotFound(e: unknown): boolean {
  return e instanceof ConnectError && e.code === Code.NotFound;
}

// isConflict is a 409: the record is already there, or already answered.
export function isConflict(e: unknown): boolean {
  return e instanceof ConnectError && e.code === Code.AlreadyExists;
}

export function isAbort(e: unknown): boolean {
  return e instanceof ConnectError && e.code === Code.Canceled;
}

export function toDate(ts: Timestamp | undefined): Date | undefined {
  return ts ? timestampDate(ts) : undefined;
}

export function fromDate(d: Date): Timestamp {
  return timestampFromDate(d);
}
