package throughtest

import (
	"context"
	"net/http"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// Who asked for an item: the request's source, else X-Agent-Name, else the
// key's label; the operator's session without a source leaves it empty. The
// same cases over REST and Connect.
func TestWhoAskedOverBothTransports(t *testing.T) {
	e := setupQueue(t)
	cases := []struct {
		name, source, agent string
		want                any // REST: nil when absent
	}{
		{"the request's source", "crm-sync", "Ranger", "crm-sync"},
		{"a blank source is not given", "  ", "Ranger", "Ranger"},
		{"the X-Agent-Name header", "", "Ranger", "Ranger"},
		{"the key's label", "", "", "Scout"},
	}
	for _, c := range cases {
		body := map[string]any{"title": "REST " + c.name}
		if c.source != "" {
			body["source"] = c.source
		}
		var hdr []string
		if c.agent != "" {
			hdr = []string{"X-Agent-Name", c.agent}
		}
		res := e.api.Do(http.MethodPost, "/api/v2/queue", body, hdr...)
		if res.Status != http.StatusCreated {
			t.Fatalf("REST %s: %d %s", c.name, res.Status, res.Body)
		}
		item := res.JSON(t)["item"].(map[string]any)
		if item["source"] != c.want {
			t.Errorf("REST %s: source = %v, want %v", c.name, item["source"], c.want)
		}
		got, err := e.s.DB.QueueItem.Get(e.ctx, item["id"].(string))
		if err != nil || got.Source == nil || *got.Source != c.want {
			t.Errorf("REST %s: stored source = %v (%v)", c.name, got, err)
		}
	}

	key := e.ann.NewKey("Scout")
	for _, c := range cases {
		req := &switchboardv1.CreateQueueItemRequest{Title: "Connect " + c.name}
		if c.source != "" {
			req.Source = proto.String(c.source)
		}
		client := switchboardv1connect.NewQueueServiceClient(e.s.HTTP, e.s.URL,
			connect.WithInterceptors(servertest.BearerInterceptor(key), header("X-Agent-Name", c.agent)))
		res, err := client.CreateQueueItem(e.ctx, req)
		if err != nil {
			t.Fatalf("Connect %s: %v", c.name, err)
		}
		if res.GetItem().GetSource() != c.want {
			t.Errorf("Connect %s: source = %q, want %v", c.name, res.GetItem().GetSource(), c.want)
		}
	}

	// The operator's own session: the given source, else none (not the name).
	res := e.ann.Session.Do(http.MethodPost, "/api/v2/queue", map[string]any{"title": "Mine"})
	if res.Status != http.StatusCreated {
		t.Fatalf("session create: %d %s", res.Status, res.Body)
	}
	if item := res.JSON(t)["item"].(map[string]any); item["source"] != nil {
		t.Errorf("session create: source = %v, want absent", item["source"])
	}
	sess := switchboardv1connect.NewQueueServiceClient(&http.Client{Jar: e.ann.Jar}, e.s.URL)
	got, err := sess.CreateQueueItem(e.ctx, &switchboardv1.CreateQueueItemRequest{Title: "Mine too"})
	if err != nil || got.GetItem().Source != nil {
		t.Errorf("Connect session create: %v %v, want no source", got, err)
	}
	got, err = sess.CreateQueueItem(e.ctx, &switchboardv1.CreateQueueItemRequest{Title: "Typed in", Source: proto.String("phone call")})
	if err != nil || got.GetItem().GetSource() != "phone call" {
		t.Errorf("Connect session create with a source: %v %v", got, err)
	}
}

// header sets one request header on every Connect call when value is not empty.
func header(name, value string) connect.Interceptor {
	return connect.UnaryInterceptorFunc(func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
			if value != "" {
				req.Header().Set(name, value)
			}
			return next(ctx, req)
		}
	})
}
