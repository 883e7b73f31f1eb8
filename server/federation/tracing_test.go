package federation_test

import (
	"bytes"
	"encoding/hex"
	"net/http"
	"testing"

	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/switchboard-hq/switchboard/ent/execution"
	"github.com/switchboard-hq/switchboard/server"
	"github.com/switchboard-hq/switchboard/server/servertest"
	"github.com/switchboard-hq/switchboard/server/store/engine"
)

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
	rcv := servertest.NewOTLPReceiver(t)
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
	var client, srv, remote, agentCall *servertest.ReceivedSpan
	eventually(t, "the spans at the receiver", func() bool {
		client = rcv.Find(x.hub.URL, executeProcedure, tracepb.Span_SPAN_KIND_CLIENT)
		srv = rcv.Find(x.spoke.URL, executeProcedure, tracepb.Span_SPAN_KIND_SERVER)
		remote = rcv.Find(x.hub.URL, engine.SpanRemote, tracepb.Span_SPAN_KIND_INTERNAL)
		agentCall = rcv.Find(x.spoke.URL, engine.SpanDispatch, tracepb.Span_SPAN_KIND_INTERNAL)
		return client != nil && srv != nil && remote != nil && agentCall != nil
	})
	hexID := func(b []byte) string { return hex.EncodeToString(b) }
	if len(client.Span.GetTraceId()) != 16 || !bytes.Equal(client.Span.GetTraceId(), srv.Span.GetTraceId()) {
		t.Fatalf("trace ids: hub %s, spoke %s", hexID(client.Span.GetTraceId()), hexID(srv.Span.GetTraceId()))
	}
	if !bytes.Equal(srv.Span.GetParentSpanId(), client.Span.GetSpanId()) {
		t.Fatalf("the spoke's span's parent is %s, not the hub's client span %s",
			hexID(srv.Span.GetParentSpanId()), hexID(client.Span.GetSpanId()))
	}
	if !bytes.Equal(client.Span.GetParentSpanId(), remote.Span.GetSpanId()) ||
		!bytes.Equal(remote.Span.GetTraceId(), client.Span.GetTraceId()) {
		t.Fatalf("the hub's client span is not the child of its remote span: %v / %v", client.Span, remote.Span)
	}
	if !bytes.Equal(agentCall.Span.GetTraceId(), srv.Span.GetTraceId()) ||
		!bytes.Equal(agentCall.Span.GetParentSpanId(), srv.Span.GetSpanId()) {
		t.Fatalf("the spoke's agent call left the trace: %v", agentCall.Span)
	}
	if client.Service != server.ServiceName || srv.Service != server.ServiceName {
		t.Fatalf("service names: %q %q", client.Service, srv.Service)
	}
	if bad := rcv.Bad(); len(bad) > 0 {
		t.Fatalf("bad exports: %v", bad)
	}
}

// TestNoEndpointNoTracing: without --otlp-endpoint there is no provider
// (neither the App's nor a global one), the hub's call to its spoke
// carries no trace context, and a receiver nobody names gets nothing.
func TestNoEndpointNoTracing(t *testing.T) {
	t.Parallel()
	rcv := servertest.NewOTLPReceiver(t)
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
	if rcv.Count() != 0 {
		t.Fatalf("spans exported without an endpoint: %d", rcv.Count())
	}
}
