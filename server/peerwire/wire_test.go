package peerwire

import (
	"errors"
	"net/http"
	"testing"

	"connectrpc.com/connect"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
)

func TestChoose(t *testing.T) {
	for _, c := range []struct {
		protocols []string
		want      Protocol
	}{
		{nil, REST},
		{[]string{}, REST},
		{[]string{"rest"}, REST},
		{[]string{"connect"}, Connect},
		{[]string{"connect", "rest"}, Connect},
		{[]string{"grpc", "rest"}, REST},
	} {
		if got := Choose(c.protocols); got != c.want {
			t.Errorf("Choose(%v) = %s, want %s", c.protocols, got, c.want)
		}
	}
}

// TestEncodeTakesTheContractsRoutes: the REST wire is each procedure's
// first google.api.http binding, read from the contract; Connect is the
// procedure's path.
func TestEncodeTakesTheContractsRoutes(t *testing.T) {
	cases := []struct {
		p                 Protocol
		procedure         string
		method, url, body string
		call              func(Protocol) (Call, error)
	}{
		{REST, "ReceiveRelay", http.MethodPost, "https://peer.example/api/v2/relay", `{"relayId":"r1"}`, func(p Protocol) (Call, error) {
			return p.Encode("https://peer.example/", switchboardv1connect.NetworkRelayPeerServiceReceiveRelayProcedure,
				&switchboardv1.ReceiveRelayRequest{RelayId: "r1"})
		}},
		{REST, "GetPatterns", http.MethodGet, "https://peer.example/api/federation/patterns", "", func(p Protocol) (Call, error) {
			return p.Encode("https://peer.example", switchboardv1connect.NetworkExchangeServiceGetPatternsProcedure,
				&switchboardv1.GetPatternsRequest{})
		}},
		{REST, "RotateConnection", http.MethodPost, "https://peer.example/api/federation/connections/c%2F1/rotate", `{"id":"c/1"}`, func(p Protocol) (Call, error) {
			return p.Encode("https://peer.example", switchboardv1connect.NetworkServiceRotateConnectionProcedure,
				&switchboardv1.RotateConnectionRequest{Id: "c/1"})
		}},
		{REST, "Execute", http.MethodPost, "https://spoke.example/api/v2/federation/execute", `{"executionId":"e1"}`, func(p Protocol) (Call, error) {
			return p.Encode("https://spoke.example", switchboardv1connect.FederationSpokeServiceExecuteProcedure,
				&switchboardv1.FederationSpokeServiceExecuteRequest{ExecutionId: "e1"})
		}},
		{Connect, "AckRelay", http.MethodPost, "https://peer.example/switchboard.v1.NetworkRelayPeerService/AckRelay", `{"relayId":"r1"}`, func(p Protocol) (Call, error) {
			return p.Encode("https://peer.example", switchboardv1connect.NetworkRelayPeerServiceAckRelayProcedure,
				&switchboardv1.AckRelayRequest{RelayId: "r1"})
		}},
	}
	for _, c := range cases {
		got, err := c.call(c.p)
		if err != nil {
			t.Fatalf("%s %s: %v", c.p, c.procedure, err)
		}
		if got.Method != c.method || got.URL != c.url || string(got.Body) != c.body {
			t.Errorf("%s %s: %s %s %s", c.p, c.procedure, got.Method, got.URL, got.Body)
		}
		if c.p == Connect && got.Header["Connect-Protocol-Version"] != "1" {
			t.Errorf("%s: headers %v", c.procedure, got.Header)
		}
	}
}

// TestDecodeRefusalsAreConnectsErrors: a refusal reads as the wire error a
// Connect client returns, the same code over either wire.
func TestDecodeRefusalsAreConnectsErrors(t *testing.T) {
	for _, c := range []struct {
		p      Protocol
		status int
		body   string
		want   connect.Code
	}{
		{REST, http.StatusNotFound, `{"success":false,"error":"no such connection","code":"NOT_FOUND"}`, connect.CodeNotFound},
		{REST, http.StatusUnauthorized, `{"success":false,"error":"unknown token"}`, connect.CodeUnauthenticated},
		{REST, http.StatusForbidden, ``, connect.CodePermissionDenied},
		{REST, http.StatusConflict, `{"error":"exists"}`, connect.CodeAlreadyExists},
		{REST, http.StatusBadRequest, `{"error":"subject is required"}`, connect.CodeInvalidArgument},
		{REST, http.StatusTooManyRequests, `{"error":"slow down"}`, connect.CodeResourceExhausted},
		{REST, http.StatusBadGateway, `oops`, connect.CodeUnavailable},
		{Connect, http.StatusForbidden, `{"code":"permission_denied","message":"off"}`, connect.CodePermissionDenied},
		{Connect, http.StatusBadRequest, `{"code":"failed_precondition","message":"no"}`, connect.CodeFailedPrecondition},
		{Connect, http.StatusNotFound, `not json`, connect.CodeNotFound},
	} {
		err := c.p.Decode(c.status, []byte(c.body), nil)
		var ce *connect.Error
		if !errors.As(err, &ce) || ce.Code() != c.want || !connect.IsWireError(err) {
			t.Errorf("%s %d %s: %v", c.p, c.status, c.body, err)
		}
	}
}

// TestDecodeREST: the REST mirror's nulls are absent values, unknown fields
// are ignored (RULINGS "Details for the house issue").
func TestDecodeREST(t *testing.T) {
	var res switchboardv1.ReceiveRelayResponse
	err := REST.Decode(http.StatusOK, []byte(`{"success":true,"relayId":"r1","cardId":null,"scopeResolved":null,"later":1}`), &res)
	if err != nil || !res.GetSuccess() || res.GetRelayId() != "r1" || res.CardId != nil {
		t.Fatalf("%v %v", &res, err)
	}
}
