package servertest

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/switchboard-hq/switchboard/server"
)

// OTLPReceiver is a loopback OTLP/HTTP trace receiver: it takes POST
// /v1/traces in binary protobuf, as a collector does, and keeps each span
// with the resource (instance) that sent it.
type OTLPReceiver struct {
	*httptest.Server
	mu    sync.Mutex
	spans []ReceivedSpan
	bad   []string
}

type ReceivedSpan struct {
	Instance string // the switchboard.instance.url of its resource
	Service  string
	Span     *tracepb.Span
}

func NewOTLPReceiver(t testing.TB) *OTLPReceiver {
	r := &OTLPReceiver{}
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
			got := ReceivedSpan{}
			for _, kv := range rs.GetResource().GetAttributes() {
				switch kv.GetKey() {
				case server.InstanceURLAttribute:
					got.Instance = kv.GetValue().GetStringValue()
				case "service.name":
					got.Service = kv.GetValue().GetStringValue()
				}
			}
			for _, ss := range rs.GetScopeSpans() {
				for _, s := range ss.GetSpans() {
					got.Span = s
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

func (r *OTLPReceiver) fail(what string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.bad = append(r.bad, what)
}

// Find answers the span named name of kind sent by instance, nil if none
// has arrived.
func (r *OTLPReceiver) Find(instance, name string, kind tracepb.Span_SpanKind) *ReceivedSpan {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range r.spans {
		s := &r.spans[i]
		if s.Instance == instance && s.Span.GetName() == name && s.Span.GetKind() == kind {
			return s
		}
	}
	return nil
}

func (r *OTLPReceiver) Count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.spans)
}

// Bad answers what the receiver refused (requests that were not OTLP/HTTP
// protobuf).
func (r *OTLPReceiver) Bad() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.bad...)
}
