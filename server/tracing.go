package server

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"connectrpc.com/connect"
	"connectrpc.com/otelconnect"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
)

// TracingConfig is --otlp-endpoint: where this instance exports its traces.
type TracingConfig struct {
	// OTLPEndpoint is the base URL of an OTLP/HTTP receiver
	// (http://collector:4318); spans go to its /v1/traces. Empty turns
	// tracing off: no provider, no exporter, no interceptors.
	OTLPEndpoint string
	// BatchTimeout is how long finished spans wait before they are
	// exported (the SDK's 5 s when zero; tests make it short).
	BatchTimeout time.Duration
}

// ServiceName is the service.name of this instance's spans.
const ServiceName = "switchboard"

// InstanceURLAttribute carries the instance's public URL on its resource,
// so the spans of a hub and of its spokes tell their instances apart.
const InstanceURLAttribute = "switchboard.instance.url"

// tracing is this App's own TracerProvider (never the global one, so two
// servers in one process keep theirs apart) and what the Connect handlers
// and the hub's spoke client add to trace with it.
type tracing struct {
	provider *sdktrace.TracerProvider
	handler  []connect.HandlerOption
	client   []connect.ClientOption
}

// newTracing builds the provider when an endpoint is configured; nil (and
// nothing to add anywhere) when not.
func newTracing(cfg Config) (*tracing, error) {
	if cfg.Tracing.OTLPEndpoint == "" {
		return nil, nil
	}
	target, err := OTLPTracesURL(cfg.Tracing.OTLPEndpoint)
	if err != nil {
		return nil, err
	}
	exporter, err := otlptracehttp.New(context.Background(), otlptracehttp.WithEndpointURL(target))
	if err != nil {
		return nil, fmt.Errorf("server: --otlp-endpoint: %w", err)
	}
	attrs := []attribute.KeyValue{attribute.String("service.name", ServiceName)}
	if u := cfg.Executions.PublicURL; u != "" {
		attrs = append(attrs, attribute.String(InstanceURLAttribute, strings.TrimSuffix(u, "/")))
	}
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(attrs...))
	if err != nil {
		return nil, fmt.Errorf("server: tracing resource: %w", err)
	}
	var batch []sdktrace.BatchSpanProcessorOption
	if cfg.Tracing.BatchTimeout > 0 {
		batch = append(batch, sdktrace.WithBatchTimeout(cfg.Tracing.BatchTimeout))
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exporter, batch...), sdktrace.WithResource(res))
	common := []otelconnect.Option{otelconnect.WithTracerProvider(tp), otelconnect.WithoutMetrics(),
		otelconnect.WithPropagator(propagation.TraceContext{})}
	// Calls from another instance (the hub's dispatch to its spoke) continue
	// the caller's trace; any other caller's trace context starts a new
	// trace, linked to it, as otelconnect does by default.
	federated, err := otelconnect.NewInterceptor(append(common, otelconnect.WithTrustRemote(),
		otelconnect.WithFilter(func(_ context.Context, s connect.Spec) bool { return fromInstance(s.Procedure) }))...)
	if err != nil {
		return nil, err
	}
	others, err := otelconnect.NewInterceptor(append(common,
		otelconnect.WithFilter(func(_ context.Context, s connect.Spec) bool { return !fromInstance(s.Procedure) }))...)
	if err != nil {
		return nil, err
	}
	client, err := otelconnect.NewInterceptor(common...)
	if err != nil {
		return nil, err
	}
	return &tracing{
		provider: tp,
		handler:  []connect.HandlerOption{connect.WithInterceptors(federated, others)},
		client:   []connect.ClientOption{connect.WithInterceptors(client)},
	}, nil
}

// fromInstance tells the procedures another instance calls (its hub's
// dispatch, a spoke's result and heartbeat), whose trace context is
// continued.
func fromInstance(procedure string) bool {
	for _, svc := range []string{switchboardv1connect.FederationSpokeServiceName,
		switchboardv1connect.FederationResultServiceName, switchboardv1connect.FederationHubServiceName} {
		if strings.HasPrefix(procedure, "/"+svc+"/") {
			return true
		}
	}
	return false
}

// OTLPTracesURL is the receiver's traces URL: the endpoint's /v1/traces,
// unless the endpoint already names it.
func OTLPTracesURL(endpoint string) (string, error) {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("server: --otlp-endpoint must be an http(s) URL such as http://localhost:4318, not %q", endpoint)
	}
	if !strings.HasSuffix(u.Path, "/v1/traces") {
		u.Path = strings.TrimSuffix(u.Path, "/") + "/v1/traces"
	}
	return u.String(), nil
}

// tracer is what the engine starts its spans with: a no-op one when
// tracing is off.
func (t *tracing) tracer() trace.Tracer {
	if t == nil {
		return nil
	}
	return t.provider.Tracer("github.com/switchboard-hq/switchboard/server/store/engine")
}

// shutdown exports what is left and stops the exporter, within a bound so
// an unreachable receiver cannot hold Close up.
func (t *tracing) shutdown() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = t.provider.Shutdown(ctx)
}

// TracerProvider is the App's provider, nil when tracing is off.
func (a *App) TracerProvider() trace.TracerProvider {
	if a.tracing == nil {
		return nil
	}
	return a.tracing.provider
}

// handlerOptions are the Connect handlers' tracing interceptors; none when
// tracing is off.
func (t *tracing) handlerOptions() []connect.HandlerOption {
	if t == nil {
		return nil
	}
	return slices.Clone(t.handler)
}

// clientOptions are the hub's spoke client's; none when tracing is off.
func (t *tracing) clientOptions() []connect.ClientOption {
	if t == nil {
		return nil
	}
	return slices.Clone(t.client)
}
