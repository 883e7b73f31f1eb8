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
	"github.com/switchboard-hq/switchboard/server/idempotency"
)

// mount is one service on both transports: its Connect handler (whose path
// names the service for reflection and health) and its gateway registration
// (nil for a service without REST routes).
type mount struct {
	handler  func(opts ...connect.HandlerOption) (string, http.Handler)
	register func(ctx context.Context, gw *runtime.ServeMux) error
	err      error
}

// mounts is every service, one line each. The order is the gateway's
// registration order, which matters: the gateway tries the last registered
// route first, so the store's execution routes come after the store's
// (GET /api/marketplace/callback wins over /api/marketplace/{id}).
func mounts(s services) []mount {
	return []mount{
		serve(s.accounts, switchboardv1connect.NewAccountServiceHandler, switchboardv1.RegisterAccountServiceHandlerServer),
		serve(s.activity, switchboardv1connect.NewActivityServiceHandler, switchboardv1.RegisterActivityServiceHandlerServer),
		serve(s.chat, switchboardv1connect.NewSharedChatServiceHandler, switchboardv1.RegisterSharedChatServiceHandlerServer),
		serve(s.contacts, switchboardv1connect.NewContactServiceHandler, switchboardv1.RegisterContactServiceHandlerServer),
		// A stream lives past the server's write timeout: Deadlines bounds each
		// write instead. Its REST twin is the SSE handler New mounts itself.
		connectOnly(switchboardv1connect.EventServiceHandler(s.events), switchboardv1connect.NewEventServiceHandler, s.events.Bus.Deadlines),
		serve(s.kanban, switchboardv1connect.NewKanbanServiceHandler, switchboardv1.RegisterKanbanServiceHandlerServer),
		serve(s.queue, switchboardv1connect.NewQueueServiceHandler, switchboardv1.RegisterQueueServiceHandlerServer),
		serve(s.keys, switchboardv1connect.NewKeyServiceHandler, switchboardv1.RegisterKeyServiceHandlerServer),
		serve(s.settings, switchboardv1connect.NewSettingsServiceHandler, switchboardv1.RegisterSettingsServiceHandlerServer),
		serve(s.store, switchboardv1connect.NewStoreServiceHandler, switchboardv1.RegisterStoreServiceHandlerServer),
		serve(s.caps, switchboardv1connect.NewCapabilityServiceHandler, switchboardv1.RegisterCapabilityServiceHandlerServer),
		serve(s.dev, switchboardv1connect.NewDeveloperServiceHandler, switchboardv1.RegisterDeveloperServiceHandlerServer),
		serve(s.review, switchboardv1connect.NewStoreReviewServiceHandler, switchboardv1.RegisterStoreReviewServiceHandlerServer),
		serve(s.execs, switchboardv1connect.NewStoreExecutionServiceHandler, switchboardv1.RegisterStoreExecutionServiceHandlerServer),
		serve(s.updates, switchboardv1connect.NewUpdateServiceHandler, switchboardv1.RegisterUpdateServiceHandlerServer),
	}
}

// serve mounts impl, which implements both the Connect handler interface H and
// the gateway's server interface G (each package asserts both at compile time;
// a mismatch here stops New).
func serve[H, G any](impl any, newHandler func(H, ...connect.HandlerOption) (string, http.Handler),
	register func(context.Context, *runtime.ServeMux, G) error) mount {
	h, hok := impl.(H)
	g, gok := impl.(G)
	if !hok || !gok {
		return mount{err: fmt.Errorf("server: %T does not serve both transports", impl)}
	}
	return mount{
		handler:  func(opts ...connect.HandlerOption) (string, http.Handler) { return newHandler(h, opts...) },
		register: func(ctx context.Context, gw *runtime.ServeMux) error { return register(ctx, gw, g) },
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
		mux.Handle(path, g.Identify(g.Connect(keyed.Connect(h))))
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

// mountErr is the first table entry that could not be mounted.
func mountErr(table []mount) error {
	for _, m := range table {
		if m.err != nil {
			return m.err
		}
	}
	return nil
}
