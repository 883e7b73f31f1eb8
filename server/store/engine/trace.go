package engine

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// Span names of the engine's dispatches.
const (
	// SpanDispatch is the call of a local agent.
	SpanDispatch = "store.execution.dispatch"
	// SpanRemote is the hand-over of an execution to the spoke its listing
	// was synced from; the Connect client span of
	// FederationSpokeService.Execute is its child.
	SpanRemote = "store.execution.remote"
)

// span starts one of the engine's spans on ctx; without a Tracer (tracing
// off) it is a no-op that allocates nothing.
func (e *Engine) span(ctx context.Context, name, executionID, agentID string) (context.Context, trace.Span) {
	if e.Tracer == nil {
		return ctx, noop.Span{}
	}
	return e.Tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(attribute.String("switchboard.execution.id", executionID),
			attribute.String("switchboard.store_agent.id", agentID)))
}

// endSpan ends s, marked failed when err is not nil.
func endSpan(s trace.Span, err error) {
	if err != nil {
		s.SetStatus(codes.Error, err.Error())
	}
	s.End()
}

// traced is the engine's background context bg carrying the trace of ctx
// (an execution made in a traced request, such as a spoke's execute from
// its hub, is run in that trace).
func traced(ctx, bg context.Context) context.Context {
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		return trace.ContextWithSpanContext(bg, sc)
	}
	return bg
}
