package peerwire

import (
	"bytes"
	"context"
	"io"
	"net/http"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
)

// maxAnswer caps a peer's answer a REST client reads.
const maxAnswer = 4 << 20

// The typed clients of each peer kind. The Connect one is connect-go's
// generated client (binary, with the caller's options: tracing); the REST
// one calls the documented routes and answers the same messages and the
// same wire errors.

// NetworkPeer is what the operator network calls on a peer: the handshake,
// its acceptance, removal and rotation.
type NetworkPeer = switchboardv1connect.NetworkPeerServiceClient

// Patterns reads a peer's published patterns.
type Patterns interface {
	GetPatterns(context.Context, *switchboardv1.GetPatternsRequest) (*switchboardv1.GetPatternsResponse, error)
}

// Spoke is what a hub calls on a spoke: execute a listing.
type Spoke interface {
	Execute(context.Context, *switchboardv1.FederationSpokeServiceExecuteRequest) (*switchboardv1.FederationSpokeServiceExecuteResponse, error)
}

// NetworkPeer is the client of the operator network's peer at origin, in
// the protocol it speaks.
func (d *Directory) NetworkPeer(ctx context.Context, origin string, opts ...connect.ClientOption) NetworkPeer {
	if d.Of(ctx, origin) == Connect {
		return switchboardv1connect.NewNetworkPeerServiceClient(d.client, key(origin), opts...)
	}
	return restPeer{d.rest(origin)}
}

// Patterns is the client of GetPatterns at origin.
func (d *Directory) Patterns(ctx context.Context, origin string, opts ...connect.ClientOption) Patterns {
	if d.Of(ctx, origin) == Connect {
		return switchboardv1connect.NewNetworkExchangeServiceClient(d.client, key(origin), opts...)
	}
	return restPatterns{d.rest(origin)}
}

// Spoke is the client of the spoke at origin.
func (d *Directory) Spoke(ctx context.Context, origin string, opts ...connect.ClientOption) Spoke {
	if d.Of(ctx, origin) == Connect {
		return switchboardv1connect.NewFederationSpokeServiceClient(d.client, key(origin), opts...)
	}
	return restSpoke{d.rest(origin)}
}

func (d *Directory) rest(origin string) rest { return rest{client: d.client, origin: origin} }

// rest calls a peer's documented routes.
type rest struct {
	client *http.Client
	origin string
}

// call sends req to procedure's route and reads the answer into res.
func (c rest) call(ctx context.Context, procedure string, req, res proto.Message) error {
	out, err := REST.Encode(c.origin, procedure, req)
	if err != nil {
		return err
	}
	var body io.Reader
	if out.Body != nil {
		body = bytes.NewReader(out.Body)
	}
	r, err := http.NewRequestWithContext(ctx, out.Method, out.URL, body)
	if err != nil {
		return err
	}
	if h, ok := ctx.Value(headerKey{}).(http.Header); ok {
		r.Header = h.Clone()
	}
	for k, v := range out.Header {
		r.Header.Set(k, v)
	}
	answer, err := c.client.Do(r)
	if err != nil {
		return err
	}
	defer func() { _ = answer.Body.Close() }()
	got, err := io.ReadAll(io.LimitReader(answer.Body, maxAnswer))
	if err != nil {
		return err
	}
	return REST.Decode(answer.StatusCode, got, res)
}

// do is call for a response type made here.
func do[Res any, P interface {
	*Res
	proto.Message
}](ctx context.Context, c rest, procedure string, req proto.Message) (*Res, error) {
	res := P(new(Res))
	if err := c.call(ctx, procedure, req, res); err != nil {
		return nil, err
	}
	return res, nil
}

type restPeer struct{ rest }

var _ NetworkPeer = restPeer{}

func (c restPeer) ReceiveConnection(ctx context.Context, req *switchboardv1.ReceiveConnectionRequest) (*switchboardv1.ReceiveConnectionResponse, error) {
	return do[switchboardv1.ReceiveConnectionResponse](ctx, c.rest, switchboardv1connect.NetworkPeerServiceReceiveConnectionProcedure, req)
}

func (c restPeer) ConfirmConnection(ctx context.Context, req *switchboardv1.ConfirmConnectionRequest) (*switchboardv1.ConfirmConnectionResponse, error) {
	return do[switchboardv1.ConfirmConnectionResponse](ctx, c.rest, switchboardv1connect.NetworkPeerServiceConfirmConnectionProcedure, req)
}

func (c restPeer) DropConnection(ctx context.Context, req *switchboardv1.DropConnectionRequest) (*switchboardv1.DropConnectionResponse, error) {
	return do[switchboardv1.DropConnectionResponse](ctx, c.rest, switchboardv1connect.NetworkPeerServiceDropConnectionProcedure, req)
}

func (c restPeer) ReplacePeerToken(ctx context.Context, req *switchboardv1.ReplacePeerTokenRequest) (*switchboardv1.ReplacePeerTokenResponse, error) {
	return do[switchboardv1.ReplacePeerTokenResponse](ctx, c.rest, switchboardv1connect.NetworkPeerServiceReplacePeerTokenProcedure, req)
}

type restPatterns struct{ rest }

func (c restPatterns) GetPatterns(ctx context.Context, req *switchboardv1.GetPatternsRequest) (*switchboardv1.GetPatternsResponse, error) {
	return do[switchboardv1.GetPatternsResponse](ctx, c.rest, switchboardv1connect.NetworkExchangeServiceGetPatternsProcedure, req)
}

type restSpoke struct{ rest }

func (c restSpoke) Execute(ctx context.Context, req *switchboardv1.FederationSpokeServiceExecuteRequest) (*switchboardv1.FederationSpokeServiceExecuteResponse, error) {
	return do[switchboardv1.FederationSpokeServiceExecuteResponse](ctx, c.rest, switchboardv1connect.FederationSpokeServiceExecuteProcedure, req)
}
