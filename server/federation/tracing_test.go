package federation_test

import (
	"bytes"
	"compress/gzip"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/switchboard-hq/switchboard/ent/execution"
	"github.com/switchboard-hq/switchboard/server"
	"github.com/switchboard-hq/switchboard/server/servertest"
	"github.com/switchboard-hq/switchboard/server/store/engine"
)

// otlpReceiver is a loopback OTLP/HTTP trace receiver: it takes POST
// /v1/traces in binary protobuf, as a collector does, and keeps each span
// with the resource (instance) that sent it.
type otlpReceiver struct {
	*httptest.Server
	mu    sync.Mutex
	spans []receivedSpan
	bad   []string
}

type receivedSpan struct {
	instance string // the switchboard.instance.url of its resource
	service  string
	span     *tracepb.Span
}

func newOTLPReceiver(t *testing.T) *otlpReceiver {
	r := &otlpReceiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodPost || req.URL.Path != "/v1/traces" || req.Header.Get("Content-Type") != "application/x-protobuf" {
			r.fail(req.Method + " " + req.URL.Path + " " + req.Header.Get("Content-Type"))
			w.WriteHeader(http.StatusNotFound)
			return
		}
		var body io.Reader = req.Body
		if req.Header.Get("Content-Encoding") == "gzip" {
			z, err := gzip.NewReader(req.Body)
			if err != nil {
				r.fail(err.Error())
				w.WriteHeader(http.StatusBadRequest)
				return
			}
			body = z
		}
		raw, _ := io.ReadAll(body)
		var msg collectortrace.ExportTraceServiceRequest
		if err := proto.Unmarshal(raw, &msg); err != nil {
			r.fail(err.Error())
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		r.mu.Lock()
		for _, rs := range msg.GetResourceSpans() {
			got := receivedSpan{}
			for _, kv := range rs.GetResource().GetAttributes() {
				switch kv.GetKey() {
				case server.InstanceURLAttribute:
					got.instance = kv.GetValue().GetStringValue()
				case "service.name":
					got.service = kv.GetValue().GetStringValue()
				}
			}
			for _, ss := range rs.GetScopeSpans() {
				for _, s := range ss.GetSpans() {
					got.span = s
					r.spans = append(r.spans, got)
				}
			}
		}
		r.mu.Unlock()
		out, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *otlpReceiver) fail(what string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bad = append(r.bad, what)
}

// find answers the span named name of kind sent by instance, nil if none
// has arrived.
func (r *otlpReceiver) find(instance, name string, kind tracepb.Span_SpanKind) *receivedSpan {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range r.spans {
		s := &r.spans[i]
		if s.instance == instance && s.span.GetName() == name && s.span.GetKind() == kind {
			return s
		}
	}
	return nil
}

func (r *otlpReceiver) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.spans)
}

const executeProcedure = "switchboard.v1.FederationSpokeService/Execute"

// TestDispatchSharesOneTrace: issue 14 item 5 (docs/decisions.md,
// "Federation: tracing (issue 14)"): with --otlp-endpoint on both
// instances, the hub's dispatch of a synced agent and the spoke's handling
// of it are one trace: the spoke's server span of
// FederationSpokeService.Execute is the child of the hub's client span, the
// hub's client span the child of its engine's remote span, and the spoke's
// call of its own agent (run in the background) stays in the trace.
func TestDispatchSharesOneTrace(t *testing.T) {
	t.Parallel()
	rcv := newOTLPReceiver(t)
	x := newExecNet(t, func(w http.ResponseWriter) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"output": "Traced."}`))
	}, nil, servertest.WithTracing(rcv.URL))
	if x.hub.App.TracerProvider() == nil || x.spoke.App.TracerProvider() == nil {
		t.Fatal("no tracer provider with an endpoint")
	}
	id := x.execute(t, "Trace me.")["executionId"].(string)
	eventually(t, "the result on the hub", func() bool {
		return hubRow(t, x.hub, id).Status == execution.StatusCompleted
	})
	var client, srv, remote, agentCall *receivedSpan
	eventually(t, "the spans at the receiver", func() bool {
		client = rcv.find(x.hub.URL, executeProcedure, tracepb.Span_SPAN_KIND_CLIENT)
		srv = rcv.find(x.spoke.URL, executeProcedure, tracepb.Span_SPAN_KIND_SERVER)
		remote = rcv.find(x.hub.URL, engine.SpanRemote, tracepb.Span_SPAN_KIND_INTERNAL)
		agentCall = rcv.find(x.spoke.URL, engine.SpanDispatch, tracepb.Span_SPAN_KIND_INTERNAL)
		return client != nil && srv != nil && remote != nil && agentCall != nil
	})
	hexID := func(b []byte) string { return hex.EncodeToString(b) }
	if len(client.span.GetTraceId()) != 16 || !bytes.Equal(client.span.GetTraceId(), srv.span.GetTraceId()) {
		t.Fatalf("trace ids: hub %s, spoke %s", hexID(client.span.GetTraceId()), hexID(srv.span.GetTraceId()))
	}
	if !bytes.Equal(srv.span.GetParentSpanId(), client.span.GetSpanId()) {
		t.Fatalf("the spoke's span's parent is %s, not the hub's client span %s",
			hexID(srv.span.GetParentSpanId()), hexID(client.span.GetSpanId()))
	}
	if !bytes.Equal(client.span.GetParentSpanId(), remote.span.GetSpanId()) ||
		!bytes.Equal(remote.span.GetTraceId(), client.span.GetTraceId()) {
		t.Fatalf("the hub's client span is not the child of its remote span: %v / %v", client.span, remote.span)
	}
	if !bytes.Equal(agentCall.span.GetTraceId(), srv.span.GetTraceId()) ||
		!bytes.Equal(agentCall.span.GetParentSpanId(), srv.span.GetSpanId()) {
		t.Fatalf("the spoke's agent call left the trace: %v", agentCall.span)
	}
	if client.service != server.ServiceName || srv.service != server.ServiceName {
		t.Fatalf("service names: %q %q", client.service, srv.service)
	}
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	if len(rcv.bad) > 0 {
		t.Fatalf("bad exports: %v", rcv.bad)
	}
}

// TestNoEndpointNoTracing: without --otlp-endpoint there is no provider
// (neither the App's nor a global one), the hub's call to its spoke
// carries no trace context, and a receiver nobody names gets nothing.
func TestNoEndpointNoTracing(t *testing.T) {
	t.Parallel()
	rcv := newOTLPReceiver(t)
	n := &network{hub: servertest.New(t, servertest.WithRole("hub"), servertest.WithSelfPublicURL(),
		servertest.WithPrivateEndpoints(), shortExecutions())}
	n.hubAdmin = n.hub.SignUp("owner")
	spoke, agent := newConnectSpoke(t, n, 't', "remote-t")
	buyer := n.hub.SignUp("buyer")
	res := n.hub.WithKey(buyer.NewKey("buy", "store")).Do(http.MethodPost, "/api/marketplace/"+agent+"/execute",
		map[string]any{"input": "Untraced."})
	if res.Status != http.StatusOK {
		t.Fatalf("execute: %d %s", res.Status, res.Body)
	}
	if n.hub.App.TracerProvider() != nil {
		t.Fatal("a tracer provider without an endpoint")
	}
	if _, ok := otel.GetTracerProvider().(*sdktrace.TracerProvider); ok {
		t.Fatal("an SDK tracer provider was installed globally")
	}
	spoke.mu.Lock()
	headers := spoke.headers
	spoke.mu.Unlock()
	if len(headers) != 1 {
		t.Fatalf("calls to the spoke: %d", len(headers))
	}
	if tp := headers[0].Get("Traceparent"); tp != "" {
		t.Fatalf("an untraced hub sent traceparent %q", tp)
	}
	n.hub.App.Close()
	if rcv.count() != 0 {
		t.Fatalf("spans exported without an endpoint: %d", rcv.count())
	}
}
