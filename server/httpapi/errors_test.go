package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/render"
)

// RULINGS "Errors": every error leaves the REST side in one shape with the
// mapped status; Connect and gRPC errors reaching the gateway are not 500s.
func TestWriteRESTMapsEveryErrorSource(t *testing.T) {
	price := 4.5
	cases := []struct {
		name   string
		err    error
		status int
		msg    string
		extra  map[string]any
	}{
		{"domain invalid", apperr.Invalid("bad %s", "thing"), 400, "bad thing", nil},
		{"illegal move", apperr.IllegalMove("cannot"), 400, "cannot", nil},
		{"wrapped domain", fmt.Errorf("ctx: %w", apperr.NotFound("gone")), 404, "gone", nil},
		{"connect not found", connect.NewError(connect.CodeNotFound, errors.New("no such item")), 404, "no such item", nil},
		{"connect permission", connect.NewError(connect.CodePermissionDenied, errors.New("nope")), 403, "nope", nil},
		{"grpc invalid", status.Error(codes.InvalidArgument, "proto: syntax error (line 1:2): unexpected token"), 400, "body does not match the request", nil},
		{"grpc missing path parameter", status.Error(codes.InvalidArgument, "missing parameter id"), 400, "id is required", nil},
		{"grpc exists", status.Error(codes.AlreadyExists, "dup"), 409, "dup", nil},
		{"payment", &apperr.Error{Kind: apperr.KindPaymentRequired, Message: "pay first", Detail: &switchboardv1.ErrorInfo{Code: "PAYMENT_REQUIRED", Price: &price}}, 402, "pay first", map[string]any{"code": "PAYMENT_REQUIRED", "price": 4.5}},
		{"integration", &apperr.Error{Kind: apperr.KindIntegrationRequired, Message: "connect email", Detail: &switchboardv1.ErrorInfo{Code: "INTEGRATION_REQUIRED", RequiredIntegration: ptr("email")}}, 422, "connect email", map[string]any{"code": "INTEGRATION_REQUIRED", "requiredIntegration": "email"}},
		{"unknown", errors.New("pq: relation users does not exist"), 500, "internal error", nil},
		{"grpc internal", status.Error(codes.Internal, "relation users does not exist"), 500, "internal error", nil},
		{"connect internal", connect.NewError(connect.CodeDataLoss, errors.New("relation lost")), 500, "internal error", nil},
		{"grpc unimplemented", status.Error(codes.Unimplemented, "method X not implemented"), 501, "method X not implemented", nil},
		{"internal wrapped", apperr.Internal(errors.New("SELECT secret FROM t")), 500, "internal error", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			WriteREST(rec, httptest.NewRequest(http.MethodGet, "/api/v2/x", nil), tc.err)
			if rec.Code != tc.status {
				t.Fatalf("status = %d, want %d", rec.Code, tc.status)
			}
			if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
				t.Fatalf("Content-Type = %q", ct)
			}
			var body map[string]any
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
				t.Fatal(err)
			}
			if body["success"] != false || body["error"] != tc.msg {
				t.Fatalf("body = %s", rec.Body)
			}
			for k, v := range tc.extra {
				if body[k] != v {
					t.Errorf("%s = %v, want %v", k, body[k], v)
				}
			}
			if strings.Contains(rec.Body.String(), "SELECT") || strings.Contains(rec.Body.String(), "relation") {
				t.Fatalf("cause leaked: %s", rec.Body)
			}
		})
	}
}

// The Connect form carries the same message, the mapped code, the documented
// code as an ErrorInfo detail, and Retry-After.
func TestToConnect(t *testing.T) {
	ce := apperr.ToConnect(&apperr.Error{Kind: apperr.KindPaymentRequired, Message: "pay first", Detail: &switchboardv1.ErrorInfo{Code: "PAYMENT_REQUIRED"}})
	if ce.Code() != connect.CodeFailedPrecondition || ce.Message() != "pay first" || len(ce.Details()) != 1 {
		t.Fatalf("ToConnect = %v (details %d)", ce, len(ce.Details()))
	}
	rl := apperr.ToConnect(apperr.RateLimited(time.Minute))
	if rl.Code() != connect.CodeResourceExhausted || rl.Meta().Get("Retry-After") != "60" {
		t.Fatalf("rate limited = %v, Retry-After %q", rl, rl.Meta().Get("Retry-After"))
	}
	if in := apperr.ToConnect(errors.New("disk on fire")); in.Code() != connect.CodeInternal || in.Message() != "internal error" {
		t.Fatalf("internal = %v", in)
	}
}

func TestWriteErrorPicksTheTransport(t *testing.T) {
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/switchboard.v1.SettingsService/GetSettings", strings.NewReader("{}"))
	req.Header.Set("Content-Type", "application/json")
	WriteError(rec, req, apperr.Unauthenticated("missing API key"))
	var body map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	if rec.Code != 401 || body["code"] != "unauthenticated" || body["message"] != "missing API key" {
		t.Fatalf("Connect error = %d %s", rec.Code, rec.Body)
	}
	rec = httptest.NewRecorder()
	WriteError(rec, httptest.NewRequest(http.MethodGet, "/api/v2/settings", nil), apperr.Unauthenticated("missing API key"))
	if rec.Code != 401 || !strings.Contains(rec.Body.String(), `"success":false`) {
		t.Fatalf("REST error = %d %s", rec.Code, rec.Body)
	}
}

// grpc-gateway decodes a `body: "field"` rule into &req.Field; every field
// must arrive, and unknown fields are still refused.
func TestRESTDecodesIntoFieldBodies(t *testing.T) {
	var in *switchboardv1.ContactInput
	if err := (render.RESTMarshaler{}).Unmarshal([]byte(`{"name":"Ada","preferredChannel":"email","lastInteractionAt":"2025-01-02T03:04:05Z"}`), &in); err != nil {
		t.Fatal(err)
	}
	if in.GetName() != "Ada" || in.GetPreferredChannel() != "email" || in.GetLastInteractionAt().AsTime().Year() != 2025 {
		t.Fatalf("decoded %v", in)
	}
	var again *switchboardv1.ContactInput
	if err := (render.RESTMarshaler{}).Unmarshal([]byte(`{"name":"Ada","nickname":"A"}`), &again); err == nil {
		t.Fatal("unknown field accepted")
	}
	var notProto struct{ Name string }
	if err := (render.RESTMarshaler{}).Unmarshal([]byte(`{"Name":"x"}`), &notProto); err == nil {
		t.Fatal("a non-message target must be refused, not decoded by other rules")
	}
}

func ptr[T any](v T) *T { return &v }

// RULINGS "Errors": the document-2 extras travel inside the server as one
// ErrorInfo detail; REST flattens it beside "error" byte for byte as the body
// was written before (key order, no HTML escaping, nothing for unset extras),
// and Connect carries the same detail.
func TestRESTErrorBodyFlattensTheDetail(t *testing.T) {
	cases := []struct {
		name string
		err  *apperr.Error
		want string
	}{
		{"no detail", apperr.Invalid("title <b> is required"), `{"success":false,"error":"title <b> is required"}` + "\n"},
		{"every extra", &apperr.Error{Kind: apperr.KindPaymentRequired, Message: "pay first",
			Detail: &switchboardv1.ErrorInfo{Code: "PAYMENT_REQUIRED", RequiredIntegration: ptr("email"), Price: ptr(4.5), InviteId: ptr("inv_1")}},
			`{"success":false,"error":"pay first","code":"PAYMENT_REQUIRED","requiredIntegration":"email","price":4.5,"inviteId":"inv_1"}` + "\n"},
		{"whole price", &apperr.Error{Kind: apperr.KindPaymentRequired, Message: "pay",
			Detail: &switchboardv1.ErrorInfo{Code: "PAYMENT_REQUIRED", Price: ptr(5.0)}},
			`{"success":false,"error":"pay","code":"PAYMENT_REQUIRED","price":5}` + "\n"},
		{"integration", &apperr.Error{Kind: apperr.KindIntegrationRequired, Message: "connect email",
			Detail: &switchboardv1.ErrorInfo{Code: "INTEGRATION_REQUIRED", RequiredIntegration: ptr("email")}},
			`{"success":false,"error":"connect email","code":"INTEGRATION_REQUIRED","requiredIntegration":"email"}` + "\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			WriteREST(rec, httptest.NewRequest(http.MethodGet, "/api/v2/x", nil), tc.err)
			if rec.Body.String() != tc.want {
				t.Fatalf("body\n got %s\nwant %s", rec.Body, tc.want)
			}
			ce := apperr.ToConnect(tc.err)
			if tc.err.Detail == nil {
				if len(ce.Details()) != 0 {
					t.Fatalf("Connect details = %d, want none", len(ce.Details()))
				}
				return
			}
			if len(ce.Details()) != 1 {
				t.Fatalf("Connect details = %d, want 1", len(ce.Details()))
			}
			v, err := ce.Details()[0].Value()
			if info, ok := v.(*switchboardv1.ErrorInfo); err != nil || !ok || !proto.Equal(info, tc.err.Detail) {
				t.Fatalf("Connect detail = %v (%v), want %v", v, err, tc.err.Detail)
			}
		})
	}
}
