package contract

import (
	"net/http"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

// Idempotency is how a procedure treats the Idempotency-Key header
// (docs/decisions.md, "Idempotency").
type Idempotency uint8

const (
	// IdempotencyKeyed: a change scoped by the caller's credential; the first
	// answer is stored and replayed to retries with the same key. The
	// default, so a new changing procedure is covered without a word.
	IdempotencyKeyed Idempotency = iota
	// IdempotencyIgnored: a read or a stream; repeating it changes nothing,
	// so the header has no effect.
	IdempotencyIgnored
	// IdempotencyRefused: a change that cannot be keyed (its answer holds a
	// secret, or it takes no credential to scope the key by); the header is
	// refused with the reason rather than silently doing nothing.
	IdempotencyRefused
)

// idempotency decides a procedure's rule from its declaration: streams and
// reads (every REST binding a GET, or idempotency_level NO_SIDE_EFFECTS) are
// ignored; an exemption or the lack of any credential refuses; the rest is keyed.
func idempotency(p *Procedure) (Idempotency, string) {
	md := p.Descriptor
	if md.IsStreamingClient() || md.IsStreamingServer() || readOnly(md, p.Bindings) {
		return IdempotencyIgnored, ""
	}
	if why := proto.GetExtension(md.Options(), switchboardv1.E_IdempotencyExempt).(string); why != "" {
		return IdempotencyRefused, why
	}
	if !p.AcceptKey && !p.AcceptSess {
		return IdempotencyRefused, "it takes no API key or session to scope the key by"
	}
	return IdempotencyKeyed, ""
}

func readOnly(md protoreflect.MethodDescriptor, bindings []Binding) bool {
	if opts, ok := md.Options().(*descriptorpb.MethodOptions); ok &&
		opts.GetIdempotencyLevel() == descriptorpb.MethodOptions_NO_SIDE_EFFECTS {
		return true
	}
	if len(bindings) == 0 {
		return false // a Connect-only unary call: a change until it says otherwise
	}
	for _, b := range bindings {
		if b.Method != http.MethodGet {
			return false
		}
	}
	return true
}
