package server

import (
	"context"
	"net/http"
	"path"
	"strings"
	"sync"

	"connectrpc.com/connect"
	"connectrpc.com/grpchealth"
	"connectrpc.com/grpcreflect"
	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"github.com/klauspost/compress/gzhttp"
	"google.golang.org/protobuf/proto"

	"github.com/switchboard-hq/switchboard/gen/openapi"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/metrics"
	"github.com/switchboard-hq/switchboard/internal/release"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/a2a"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/assistant"
	"github.com/switchboard-hq/switchboard/server/contract"
	"github.com/switchboard-hq/switchboard/server/documents"
	"github.com/switchboard-hq/switchboard/server/federation"
	"github.com/switchboard-hq/switchboard/server/gate"
	"github.com/switchboard-hq/switchboard/server/httpapi"
	"github.com/switchboard-hq/switchboard/server/idempotency"
	"github.com/switchboard-hq/switchboard/server/inbound"
	"github.com/switchboard-hq/switchboard/server/input"
	"github.com/switchboard-hq/switchboard/server/mcp"
	"github.com/switchboard-hq/switchboard/server/render"
	"github.com/switchboard-hq/switchboard/web"
)

// onlyGET answers other methods 405 like every known REST path.
func onlyGET(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet { // HEAD too: a stream has no headers-only form
			httpapi.WriteREST(w, r, &apperr.Error{Kind: apperr.KindMethodNotAllowed,
				Message: "method " + r.Method + " is not allowed on " + r.URL.Path})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// compressMinBytes is the smallest Connect answer compressed for a client
// that accepts it: below about a kilobyte gzip saves little or adds bytes.
const compressMinBytes = 1024

func connectOptions(cfg Config, tr *tracing) []connect.HandlerOption {
	// Tracing outermost: its spans see the mapped errors' codes.
	opts := tr.handlerOptions()
	opts = append(opts,
		// The metrics see the codes the errors are mapped to; errors
		// outermost of the rest, so the input check's refusals are mapped too.
		connect.WithInterceptors(metrics.Interceptor(), httpapi.ConnectErrors(), httpapi.Answers(), input.Interceptor()),
		connect.WithReadMaxBytes(int(cfg.BodyLimit)),
		// Small answers go out uncompressed (gzip makes an 18-byte answer
		// 42 bytes), so they also end in the newline httpapi.ConnectAnswers
		// adds to a JSON answer it can read.
		connect.WithCompressMinBytes(compressMinBytes),
		connect.WithCodec(render.RPCProtoCodec{}),
	)
	for _, c := range render.RPCJSONCodecs() {
		opts = append(opts, connect.WithCodec(c))
	}
	return opts
}

// strictQueryOnce installs the strict query parser: grpc-gateway keeps it in a
// package variable (its option sets that variable when a mux applies it), so it
// is applied once per process, not per server, which would race in tests.
var strictQueryOnce sync.Once

func newGateway(table *contract.Table, g *gate.Gate, keyed *idempotency.Guard, mounts []mount) (*runtime.ServeMux, error) {
	none := func(string) (string, bool) { return "", false }
	opts := []runtime.ServeMuxOption{
		runtime.WithMarshalerOption(runtime.MIMEWildcard, httpapi.RESTAnswers{}),
		runtime.WithErrorHandler(httpapi.GatewayError),
		runtime.WithRoutingErrorHandler(httpapi.GatewayRoutingError),
		runtime.WithMiddlewares(g.Gateway, keyed.Gateway),
		runtime.WithForwardResponseOption(httpapi.AnswerHeaders), // before the status is written
		runtime.WithForwardResponseOption(restStatus(table)),
		// Services read nothing from gRPC metadata and send none as headers.
		runtime.WithIncomingHeaderMatcher(none),
		runtime.WithOutgoingHeaderMatcher(none),
	}
	strictQueryOnce.Do(func() { opts = append(opts, runtime.SetQueryParameterParser(httpapi.StrictQuery{})) })
	gw := runtime.NewServeMux(opts...)
	if err := registerGateway(gw, mounts); err != nil {
		return nil, err
	}
	return gw, nil
}

// restStatus answers a successful REST call with the status its RPC declares
// (rest_status), such as 201 for creations, or, for an RPC whose status
// depends on the outcome (rest_created_field), 201 when the answer's field
// says it created something.
func restStatus(table *contract.Table) func(context.Context, http.ResponseWriter, proto.Message) error {
	return func(ctx context.Context, w http.ResponseWriter, m proto.Message) error {
		name, ok := runtime.RPCMethod(ctx)
		if !ok {
			return nil
		}
		p, ok := table.ByName(name)
		switch {
		case !ok:
		case p.CreatedField != nil:
			if m.ProtoReflect().Descriptor() == p.CreatedField.ContainingMessage() && m.ProtoReflect().Get(p.CreatedField).Bool() {
				w.WriteHeader(http.StatusCreated)
			}
		case p.RESTStatus != http.StatusOK:
			w.WriteHeader(p.RESTStatus)
		}
		return nil
	}
}

func serveDocs(w http.ResponseWriter, _ *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	httpapi.PublicAnswer(h)
	_, _ = w.Write(openapi.JSON)
}

// apiAsWritten hands an API path that is not in clean form (an empty segment,
// as in /api/v2/kanban//checklist/1) to the API as written, where the route's
// rules refuse it with an error body, instead of ServeMux's bare 307 to the
// cleaned path (docs/decisions.md "Errors").
func apiAsWritten(mux *http.ServeMux, api http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.URL.Path; strings.HasPrefix(p, "/api/") && cleanPath(p) != p {
			api.ServeHTTP(w, r)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// cleanPath is the form ServeMux redirects to: path.Clean, keeping a
// trailing slash.
func cleanPath(p string) string {
	c := path.Clean(p)
	if strings.HasSuffix(p, "/") && c != "/" {
		c += "/"
	}
	return c
}

// mcpAccess is the MCP door's rule (docs/decisions.md "MCP").
var mcpAccess = contract.KeyRule(mcp.Path, "mcp", "")

// apiVersion is the API's version, as the OpenAPI document and the agent
// card report it: the release `switchboard version` prints.
var apiVersion = release.Version

// mountDocuments mounts the two document routes that are not RPCs, each
// admitted as its procedure's twin (session, CSRF, the per-key limit): the
// multipart upload under CreateDocument with its own body limit above the
// server's (the JSON create goes on to the gateway), and the raw bytes under
// GetDocumentContent.
func mountDocuments(mux *http.ServeMux, g *gate.Gate, docs *documents.Service, api http.Handler) {
	upload := g.Identify(g.Procedure(switchboardv1connect.DocumentServiceCreateDocumentProcedure,
		httpapi.LimitBody(documents.UploadBodyLimit, httpapi.Serve(docs.Upload()))))
	mux.Handle("POST /api/documents", documents.Multipart(upload, api))
	mux.Handle("GET /api/documents/{id}/raw", g.Identify(g.Procedure(
		switchboardv1connect.DocumentServiceGetDocumentContentProcedure, httpapi.Serve(docs.Raw()))))
}

// mountInbound mounts the inbound webhooks' deliveries, a door of their
// own: the signature (or, for a hook that takes unsigned deliveries, the
// URL's id) is the credential, and it covers the raw body, so the door
// reads the body itself (its limit is the server's, refused 413 and logged).
// Deliveries count in the per-client limit of Identify (120 a minute per
// sending address) and no class of their own (docs/decisions.md "Inbound
// webhooks"). Document 1's paths without an id answer 404 naming the form.
func mountInbound(mux *http.ServeMux, g *gate.Gate, hooks *inbound.Service) {
	for _, kind := range vocab.Values("inbound_webhook_kind") {
		mux.Handle("POST "+inbound.Path+kind+"/{id}", g.Identify(httpapi.Serve(hooks.Deliver(kind))))
		mux.Handle("POST "+inbound.Path+kind, g.Identify(httpapi.Serve(inbound.NoID)))
	}
}

// routes is the whole HTTP surface: every mount on both transports, the
// endpoints beside them (streams, MCP, A2A, the well-known documents, the
// dashboard), behind the federation guard and audit log and the logging.
func (h *house) routes() (http.Handler, error) {
	cfg, g, svc := h.cfg, h.gate, h.svc
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
	if cfg.MetricsToken != "" {
		mux.Handle("GET /metrics", metrics.Bearer(cfg.MetricsToken, cfg.Metrics.Handler(), refuseMetrics))
	}
	mux.Handle("GET /api/v2/docs", g.Identify(http.HandlerFunc(serveDocs)))
	services := mounts(svc)
	gw, err := newGateway(h.table, g, h.keyed, services)
	if err != nil {
		return nil, err
	}
	// The Server-Sent Events twin of EventService.StreamEvents, under its
	// access rule; outside the gateway (and gzip, which would hold events back).
	mux.Handle("/api/v2/shared-chat/stream", g.Identify(g.Procedure(
		switchboardv1connect.EventServiceStreamEventsProcedure, onlyGET(g.Stream(h.bus.SSE())))))
	// The MCP door: an API key with the mcp scope, each tool's scopes on top;
	// its refusals carry Bearer challenges, which MCP clients read to choose
	// between a key and OAuth.
	mux.Handle(mcp.Path, g.Identify(g.BearerEndpoint(mcpAccess, httpapi.Serve(h.door.Serve))))
	mux.Handle("GET "+mcp.CardPath, h.door.CardHandler(cfg.Executions.PublicURL))
	// The A2A endpoint behind its own rule (a key with the a2a scope), and
	// the public agent card.
	mux.Handle(a2a.Path, g.Identify(g.Endpoint(a2a.Rule, httpapi.LimitBody(cfg.BodyLimit, httpapi.Serve(svc.a2a.Serve)))))
	card := &a2a.Card{Version: apiVersion, PublicURL: cfg.Executions.PublicURL, MCPTools: h.door.ToolNames}
	mux.Handle("GET "+a2a.CardPath, card)
	mux.Handle("GET "+a2a.LegacyCardPath, card)
	// The operator network's check (?connectionId=) before the spoke's.
	mux.Handle("GET "+federation.WellKnownPath, httpapi.Serve(svc.peers.WellKnown(svc.inbound.WellKnown())))
	mux.Handle("POST "+federation.WebhookPath, httpapi.Serve(svc.inbound.Webhook()))
	// REST answers are gzipped when the client asks (Connect compresses its own).
	api := g.Identify(httpapi.LimitBody(cfg.BodyLimit, gzhttp.GzipHandler(gw)))
	mux.Handle("/api/", api)
	mountDocuments(mux, g, svc.docs, api)
	mountInbound(mux, g, svc.inboundHooks)
	// The assistant's reply as Server-Sent Events, under SendChat's rule; a
	// stream lives past the server's write timeout (each write is bounded).
	mux.Handle("POST /api/chat/send", g.Identify(g.Procedure(switchboardv1connect.AssistantChatServiceSendChatProcedure,
		httpapi.LimitBody(cfg.BodyLimit, g.Stream(h.bus.Deadlines(httpapi.Serve(svc.conversation.SSE())))))))
	// A recording for the assistant, admitted as SendChat's twin (session,
	// CSRF, its limit) with its own body limit above the server's.
	mux.Handle("POST /api/chat/voice", g.Identify(g.Procedure(switchboardv1connect.AssistantChatServiceSendChatProcedure,
		httpapi.LimitBody(assistant.VoiceBodyLimit, httpapi.Serve(svc.conversation.Voice())))))
	names := mountConnect(mux, g, h.keyed, services,
		append(connectOptions(cfg, h.tracing), connect.WithInterceptors(g.RequiredPathFields())))
	reflector := grpcreflect.NewStaticReflector(names...)
	mux.Handle(grpcreflect.NewHandlerV1(reflector))
	mux.Handle(grpcreflect.NewHandlerV1Alpha(reflector))
	mux.Handle(grpchealth.NewHandler(grpchealth.NewStaticChecker(names...)))
	// The dashboard's files (GET and HEAD of "/" and of each built file); any
	// other path keeps the JSON 404.
	site, err := web.New()
	if err != nil {
		return nil, err
	}
	mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if site.Serves(r) {
			site.ServeHTTP(w, r)
			return
		}
		if httpapi.IsConnectPath(r.URL.Path) { // a service this server does not have
			httpapi.UnknownProcedure(w, r)
			return
		}
		httpapi.WriteREST(w, r, notFound(r))
	}))
	// The federation guard and audit log stand before every inbound federation
	// route, whichever way the mux reaches it (paths are matched cleaned).
	return cfg.Metrics.Requests(httpapi.Observe(cfg.Logger, svc.recorder.Middleware(federation.InboundPaths, httpapi.WriteREST, apiAsWritten(mux, api)))), nil
}
