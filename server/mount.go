package server

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"connectrpc.com/connect"
	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/gate"
	"github.com/switchboard-hq/switchboard/server/httpapi"
	"github.com/switchboard-hq/switchboard/server/idempotency"
)

// mount is one service on both transports: its Connect handler (whose path
// names the service for reflection and health) and its gateway registration
// (nil for a service without REST routes).
type mount struct {
	handler  func(opts ...connect.HandlerOption) (string, http.Handler)
	register func(ctx context.Context, gw *runtime.ServeMux) error
}

// mounts is every service, one line each. The order is the gateway's
// registration order, which matters: the gateway tries the last registered
// route first, so the store's execution routes come after the store's
// (GET /api/marketplace/callback wins over /api/marketplace/{id}).
func mounts(s services) []mount {
	return []mount{
		serve(switchboardv1connect.NewAccountServiceHandler, switchboardv1.RegisterAccountServiceHandlerServer)(s.accounts, s.accounts),
		serve(switchboardv1connect.NewActivityServiceHandler, switchboardv1.RegisterActivityServiceHandlerServer)(s.activity, s.activity),
		serve(switchboardv1connect.NewSharedChatServiceHandler, switchboardv1.RegisterSharedChatServiceHandlerServer)(s.chat, s.chat),
		serve(switchboardv1connect.NewContactServiceHandler, switchboardv1.RegisterContactServiceHandlerServer)(s.contacts, s.contacts),
		serve(switchboardv1connect.NewCalendarServiceHandler, switchboardv1.RegisterCalendarServiceHandlerServer)(s.calendar, s.calendar),
		serve(switchboardv1connect.NewNowServiceHandler, switchboardv1.RegisterNowServiceHandlerServer)(s.now, s.now),
		serve(switchboardv1connect.NewDashboardServiceHandler, switchboardv1.RegisterDashboardServiceHandlerServer)(s.waiting, s.waiting),
		serve(switchboardv1connect.NewDocumentServiceHandler, switchboardv1.RegisterDocumentServiceHandlerServer)(s.docs, s.docs),
		serve(switchboardv1connect.NewTeamServiceHandler, switchboardv1.RegisterTeamServiceHandlerServer)(s.teams, s.teams),
		serve(switchboardv1connect.NewProjectServiceHandler, switchboardv1.RegisterProjectServiceHandlerServer)(s.projects, s.projects),
		serve(switchboardv1connect.NewEconomyServiceHandler, switchboardv1.RegisterEconomyServiceHandlerServer)(s.economyOps, s.economyOps),
		serve(switchboardv1connect.NewEconomyAdminServiceHandler, switchboardv1.RegisterEconomyAdminServiceHandlerServer)(s.economyAdmin, s.economyAdmin),
		serve(switchboardv1connect.NewEconomyPeerServiceHandler, switchboardv1.RegisterEconomyPeerServiceHandlerServer)(s.economyPeer, s.economyPeer),
		serve(switchboardv1connect.NewJobMarketServiceHandler, switchboardv1.RegisterJobMarketServiceHandlerServer)(s.economyMarket, s.economyMarket),
		serve(switchboardv1connect.NewBehaviorSignalServiceHandler, switchboardv1.RegisterBehaviorSignalServiceHandlerServer)(s.learnings, s.learnings),
		serve(switchboardv1connect.NewLearningServiceHandler, switchboardv1.RegisterLearningServiceHandlerServer)(s.learnings, s.learnings),
		serve(switchboardv1connect.NewWorkflowServiceHandler, switchboardv1.RegisterWorkflowServiceHandlerServer)(s.learnings, s.learnings),
		serve(switchboardv1connect.NewProfileServiceHandler, switchboardv1.RegisterProfileServiceHandlerServer)(s.profiles, s.profiles),
		// A stream lives past the server's write timeout: Deadlines bounds each
		// write instead. Its REST twin is the SSE handler New mounts itself.
		connectOnly(switchboardv1connect.EventServiceHandler(s.events), switchboardv1connect.NewEventServiceHandler, s.events.Bus.Deadlines),
		serve(switchboardv1connect.NewKanbanServiceHandler, switchboardv1.RegisterKanbanServiceHandlerServer)(s.kanban, s.kanban),
		serve(switchboardv1connect.NewCardLinkServiceHandler, switchboardv1.RegisterCardLinkServiceHandlerServer)(s.kanban, s.kanban),
		serve(switchboardv1connect.NewBoardCortexServiceHandler, switchboardv1.RegisterBoardCortexServiceHandlerServer)(s.board, s.board),
		serve(switchboardv1connect.NewCronServiceHandler, switchboardv1.RegisterCronServiceHandlerServer)(s.board, s.board),
		serve(switchboardv1connect.NewQueueServiceHandler, switchboardv1.RegisterQueueServiceHandlerServer)(s.queue, s.queue),
		serve(switchboardv1connect.NewKeyServiceHandler, switchboardv1.RegisterKeyServiceHandlerServer)(s.keys, s.keys),
		serve(switchboardv1connect.NewInboundWebhookServiceHandler, switchboardv1.RegisterInboundWebhookServiceHandlerServer)(s.inboundHooks, s.inboundHooks),
		serve(switchboardv1connect.NewSettingsServiceHandler, switchboardv1.RegisterSettingsServiceHandlerServer)(s.settings, s.settings),
		serve(switchboardv1connect.NewStoreServiceHandler, switchboardv1.RegisterStoreServiceHandlerServer)(s.store, s.store),
		serve(switchboardv1connect.NewCapabilityServiceHandler, switchboardv1.RegisterCapabilityServiceHandlerServer)(s.caps, s.caps),
		// Before DeveloperService: its PATCH /api/developer/agents/register
		// must win over the portal's /api/developer/agents/{id}.
		serve(switchboardv1connect.NewDeveloperPortalServiceHandler, switchboardv1.RegisterDeveloperPortalServiceHandlerServer)(s.portal, s.portal),
		serve(switchboardv1connect.NewDeveloperServiceHandler, switchboardv1.RegisterDeveloperServiceHandlerServer)(s.dev, s.dev),
		serve(switchboardv1connect.NewStoreReviewServiceHandler, switchboardv1.RegisterStoreReviewServiceHandlerServer)(s.review, s.review),
		serve(switchboardv1connect.NewStoreExecutionServiceHandler, switchboardv1.RegisterStoreExecutionServiceHandlerServer)(s.execs, s.execs),
		serve(switchboardv1connect.NewStoreAdminServiceHandler, switchboardv1.RegisterStoreAdminServiceHandlerServer)(s.storeAdmin, s.storeAdmin),
		serve(switchboardv1connect.NewUpdateServiceHandler, switchboardv1.RegisterUpdateServiceHandlerServer)(s.updates, s.updates),
		serve(switchboardv1connect.NewWidgetServiceHandler, switchboardv1.RegisterWidgetServiceHandlerServer)(s.widgets, s.widgets),
		serve(switchboardv1connect.NewHandoffServiceHandler, switchboardv1.RegisterHandoffServiceHandlerServer)(s.handoff, s.handoff),
		serve(switchboardv1connect.NewFederationHubServiceHandler, switchboardv1.RegisterFederationHubServiceHandlerServer)(s.platform, s.platform),
		serve(switchboardv1connect.NewFederationPlatformServiceHandler, switchboardv1.RegisterFederationPlatformServiceHandlerServer)(s.platform, s.platform),
		serve(switchboardv1connect.NewFederationAdminServiceHandler, switchboardv1.RegisterFederationAdminServiceHandlerServer)(s.hubAdmin, s.hubAdmin),
		serve(switchboardv1connect.NewFederationServiceHandler, switchboardv1.RegisterFederationServiceHandlerServer)(s.spokeAdmin, s.spokeAdmin),
		serve(switchboardv1connect.NewFederationSpokeServiceHandler, switchboardv1.RegisterFederationSpokeServiceHandlerServer)(s.inbound, s.inbound),
		serve(switchboardv1connect.NewFederationResultServiceHandler, switchboardv1.RegisterFederationResultServiceHandlerServer)(s.platform, s.platform),
		serve(switchboardv1connect.NewFederationMarketServiceHandler, switchboardv1.RegisterFederationMarketServiceHandlerServer)(s.platform, s.platform),
		serve(switchboardv1connect.NewFederationDeliveryServiceHandler, switchboardv1.RegisterFederationDeliveryServiceHandlerServer)(s.inbound, s.inbound),
		serve(switchboardv1connect.NewFederationAuditServiceHandler, switchboardv1.RegisterFederationAuditServiceHandlerServer)(s.audit, s.audit),
		serve(switchboardv1connect.NewNetworkServiceHandler, switchboardv1.RegisterNetworkServiceHandlerServer)(s.network, s.network),
		serve(switchboardv1connect.NewNetworkPeerServiceHandler, switchboardv1.RegisterNetworkPeerServiceHandlerServer)(s.peers, s.peers),
		serve(switchboardv1connect.NewNetworkExchangeServiceHandler, switchboardv1.RegisterNetworkExchangeServiceHandlerServer)(s.network, s.network),
		serve(switchboardv1connect.NewNetworkExchangePeerServiceHandler, switchboardv1.RegisterNetworkExchangePeerServiceHandlerServer)(s.peers, s.peers),
		serve(switchboardv1connect.NewNetworkRelayServiceHandler, switchboardv1.RegisterNetworkRelayServiceHandlerServer)(s.relays, s.relays),
		serve(switchboardv1connect.NewNetworkRelayPeerServiceHandler, switchboardv1.RegisterNetworkRelayPeerServiceHandlerServer)(s.peers, s.peers),
		serve(switchboardv1connect.NewNetworkSharePeerServiceHandler, switchboardv1.RegisterNetworkSharePeerServiceHandlerServer)(s.peers, s.peers),
		serve(switchboardv1connect.NewNetworkRouteServiceHandler, switchboardv1.RegisterNetworkRouteServiceHandlerServer)(s.relays, s.relays),
		serve(switchboardv1connect.NewAssistantServiceHandler, switchboardv1.RegisterAssistantServiceHandlerServer)(s.conversation, s.conversation),
		// Its REST twin is the SSE handler New mounts (POST /api/chat/send).
		connectOnly(switchboardv1connect.AssistantChatServiceHandler(s.conversation), switchboardv1connect.NewAssistantChatServiceHandler, s.events.Bus.Deadlines),
		serve(switchboardv1connect.NewAssistantPromptServiceHandler, switchboardv1.RegisterAssistantPromptServiceHandlerServer)(s.prompt, s.prompt),
		serve(switchboardv1connect.NewOnboardingServiceHandler, switchboardv1.RegisterOnboardingServiceHandlerServer)(s.onboarding, s.onboarding),
		serve(switchboardv1connect.NewSpriteServiceHandler, switchboardv1.RegisterSpriteServiceHandlerServer)(s.sprite, s.sprite),
	}
}

// serve mounts one implementation on both transports: serve(newHandler,
// register)(impl, impl). The second call takes impl as the Connect handler
// interface H and as the gateway's server interface G, so the compiler checks
// that it implements both, here, once for every service.
func serve[H, G any](newHandler func(H, ...connect.HandlerOption) (string, http.Handler),
	register func(context.Context, *runtime.ServeMux, G) error) func(H, G) mount {
	return func(h H, g G) mount {
		return mount{
			handler:  func(opts ...connect.HandlerOption) (string, http.Handler) { return newHandler(h, opts...) },
			register: func(ctx context.Context, gw *runtime.ServeMux) error { return register(ctx, gw, g) },
		}
	}
}

// connectOnly mounts a Connect handler without gateway routes, wrapped.
func connectOnly[H any](impl H, newHandler func(H, ...connect.HandlerOption) (string, http.Handler),
	wrap func(http.Handler) http.Handler) mount {
	return mount{handler: func(opts ...connect.HandlerOption) (string, http.Handler) {
		path, h := newHandler(impl, opts...)
		return path, wrap(h)
	}}
}

// serviceName is the fully qualified service a Connect path serves
// ("/switchboard.v1.QueueService/" → "switchboard.v1.QueueService").
func serviceName(path string) string { return strings.Trim(path, "/") }

// mountConnect mounts every service's Connect handler behind the gate and
// returns the service names for reflection and health.
func mountConnect(mux *http.ServeMux, g *gate.Gate, keyed *idempotency.Guard, table []mount, opts []connect.HandlerOption) []string {
	names := make([]string, 0, len(table))
	for _, m := range table {
		path, h := m.handler(opts...)
		mux.Handle(path, g.Identify(g.Connect(keyed.Connect(httpapi.ConnectAnswers(h)))))
		names = append(names, serviceName(path))
	}
	return names
}

// registerGateway registers every service's REST routes in the table's order.
func registerGateway(gw *runtime.ServeMux, table []mount) error {
	ctx := context.Background()
	for _, m := range table {
		if m.register == nil {
			continue
		}
		if err := m.register(ctx, gw); err != nil {
			return fmt.Errorf("server: register gateway: %w", err)
		}
	}
	return nil
}
