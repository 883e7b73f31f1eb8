package throughtest

import (
	"bytes"
	"errors"
	"net/http"
	"testing"

	"connectrpc.com/connect"
	"entgo.io/ent/dialect"

	"github.com/switchboard-hq/switchboard/ent/idempotencyrecord"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// A refusal below 500 is an answer like any other (docs/decisions.md,
// "Idempotency"): it is stored, and a retry with the same key and body gets
// the same status and body with Idempotent-Replayed: true, and writes
// nothing. A validation 400 and a 404 for another account's id, over REST.
func TestRefusalsAreReplayedOverREST(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	ann, bob := s.SignUp("ann"), s.SignUp("bob")
	api := s.WithKey(ann.NewKey("agent"))
	bobs := bobItem(t, s, bob)
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
	}{
		{"validation", http.MethodPost, "/api/v2/queue", `{"title":""}`, http.StatusBadRequest},
		{"another account's id", http.MethodPut, "/api/v2/queue/" + bobs, `{"title":"Taken"}`, http.StatusNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			first := keyed(api, tc.method, tc.path, "refused "+tc.name, tc.body)
			servertest.WantError(t, first, tc.status)
			if first.Header.Get(replayedHeader) != "" {
				t.Fatal("a first answer is marked replayed")
			}
			again := keyed(api, tc.method, tc.path, "refused "+tc.name, tc.body)
			if again.Status != tc.status || again.Header.Get(replayedHeader) != "true" || !bytes.Equal(again.Body, first.Body) {
				t.Fatalf("retry not replayed: %d %v %s, first %s", again.Status, again.Header, again.Body, first.Body)
			}
			wantNothingWritten(t, s, ann.ID, bobs)
		})
	}
}

// The same with the generated Connect client: the retry is the same error
// (code and message), marked replayed.
func TestRefusalsAreReplayedOverConnect(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	ann, bob := s.SignUp("ann"), s.SignUp("bob")
	queue := switchboardv1connect.NewQueueServiceClient(s.HTTP, s.URL,
		connect.WithInterceptors(servertest.BearerInterceptor(ann.NewKey("agent"))))
	bobs := bobItem(t, s, bob)
	taken := "Taken"
	for _, tc := range []struct {
		name string
		code connect.Code
		call func() error
	}{
		{"validation", connect.CodeInvalidArgument, func() error {
			ctx, _ := withKey(t.Context(), "refused validation")
			_, err := queue.CreateQueueItem(ctx, &switchboardv1.CreateQueueItemRequest{Title: ""})
			return err
		}},
		{"another account's id", connect.CodeNotFound, func() error {
			ctx, _ := withKey(t.Context(), "refused another account's id")
			_, err := queue.UpdateQueueItem(ctx, &switchboardv1.UpdateQueueItemRequest{Id: bobs, Title: &taken})
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			first := connectError(t, tc.call(), tc.code)
			if first.Meta().Get(replayedHeader) != "" {
				t.Fatal("a first answer is marked replayed")
			}
			again := connectError(t, tc.call(), tc.code)
			if again.Meta().Get(replayedHeader) != "true" || again.Message() != first.Message() {
				t.Fatalf("retry not replayed: %v %v, first %v", again, again.Meta(), first)
			}
			wantNothingWritten(t, s, ann.ID, bobs)
		})
	}
}

// A 5xx frees the key (docs/decisions.md, "Idempotency"): nothing of the
// failed request is kept, and the same key and body, retried once the cause
// is gone, runs and succeeds, making exactly one row. The database refusing
// queue writes for a while is the server's failure, over REST.
func TestServerErrorsFreeTheKeyOverREST(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	acct := s.SignUp("ann")
	api := s.WithKey(acct.NewKey("agent"))
	c := creates[0]
	restore := refuseQueueWrites(t, s)
	servertest.WantError(t, keyed(api, http.MethodPost, c.path, "fails once", c.body("1")), http.StatusInternalServerError)
	wantKeyFree(t, s, "fails once")
	restore()
	res := keyed(api, http.MethodPost, c.path, "fails once", c.body("1"))
	servertest.WantStatus(t, res, http.StatusCreated)
	if res.Header.Get(replayedHeader) != "" {
		t.Fatal("the retry after a 5xx was replayed")
	}
	if again := keyed(api, http.MethodPost, c.path, "fails once", c.body("1")); again.Header.Get(replayedHeader) != "true" {
		t.Fatalf("the success is not kept: %d %v", again.Status, again.Header)
	}
	if n := c.count(t, s, acct.ID); n != 1 {
		t.Fatalf("%d items, want 1", n)
	}
}

// The same with the generated Connect client.
func TestServerErrorsFreeTheKeyOverConnect(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	acct := s.SignUp("ann")
	queue := switchboardv1connect.NewQueueServiceClient(s.HTTP, s.URL,
		connect.WithInterceptors(servertest.BearerInterceptor(acct.NewKey("agent"))))
	call := func() (*switchboardv1.CreateQueueItemResponse, connect.CallInfo, error) {
		ctx, info := withKey(t.Context(), "fails once")
		res, err := queue.CreateQueueItem(ctx, &switchboardv1.CreateQueueItemRequest{Title: "Task 1"})
		return res, info, err
	}
	restore := refuseQueueWrites(t, s)
	_, _, err := call()
	servertest.WantCode(t, err, connect.CodeInternal)
	wantKeyFree(t, s, "fails once")
	restore()
	first, info, err := call()
	if err != nil || info.ResponseHeader().Get(replayedHeader) != "" {
		t.Fatalf("retry after the 5xx: %v %v", err, info.ResponseHeader())
	}
	again, info, err := call()
	if err != nil || info.ResponseHeader().Get(replayedHeader) != "true" || again.GetItem().GetId() != first.GetItem().GetId() {
		t.Fatalf("the success is not kept: %v %v %v", again, info.ResponseHeader(), err)
	}
	if n := creates[0].count(t, s, acct.ID); n != 1 {
		t.Fatalf("%d items, want 1", n)
	}
}

// The same key sent to another procedure or path, by the same credential, is
// another request (docs/decisions.md, "Idempotency": procedure, method and
// path are in the fingerprint): 422, or failed_precondition on Connect, and
// nothing written, even with the same body. Across transports too.
func TestKeyReusedElsewhereIsRefused(t *testing.T) {
	t.Parallel()
	s := servertest.New(t)
	acct := s.SignUp("ann")
	key := acct.NewKey("agent")
	api := s.WithKey(key)
	opts := connect.WithInterceptors(servertest.BearerInterceptor(key))
	queue := switchboardv1connect.NewQueueServiceClient(s.HTTP, s.URL, opts)
	kanban := switchboardv1connect.NewKanbanServiceClient(s.HTTP, s.URL, opts)
	body := `{"title":"Same"}`
	servertest.WantStatus(t, keyed(api, http.MethodPost, "/api/v2/queue", "reused", body), http.StatusCreated)
	item := s.DB.QueueItem.Query().OnlyX(t.Context())

	// Each refusal leaves the account's items and cards as they were (a
	// queue item brings its card along, so both are counted).
	refused := func(t *testing.T, send func() error) {
		t.Helper()
		items, cards := creates[0].count(t, s, acct.ID), creates[1].count(t, s, acct.ID)
		if err := send(); err != nil {
			t.Fatal(err)
		}
		if creates[0].count(t, s, acct.ID) != items || creates[1].count(t, s, acct.ID) != cards {
			t.Fatal("a refused request wrote")
		}
	}
	rest := func(method, path string) func() error {
		return func() error {
			servertest.WantErrorContaining(t, keyed(api, method, path, "reused", body), http.StatusUnprocessableEntity, "different request")
			return nil
		}
	}
	t.Run("another REST procedure", func(t *testing.T) { refused(t, rest(http.MethodPost, "/api/v2/kanban")) })
	t.Run("another path of the same procedure", func(t *testing.T) {
		refused(t, rest(http.MethodPut, "/api/v2/queue/"+item.ID))
	})
	title := "Same"
	t.Run("the same procedure over Connect", func(t *testing.T) {
		refused(t, func() error {
			ctx, _ := withKey(t.Context(), "reused")
			_, err := queue.CreateQueueItem(ctx, &switchboardv1.CreateQueueItemRequest{Title: title})
			servertest.WantCode(t, err, connect.CodeFailedPrecondition)
			return nil
		})
	})
	t.Run("another Connect procedure", func(t *testing.T) {
		ctx, _ := withKey(t.Context(), "reused over Connect")
		if _, err := queue.CreateQueueItem(ctx, &switchboardv1.CreateQueueItemRequest{Title: title}); err != nil {
			t.Fatal(err)
		}
		refused(t, func() error {
			ctx, _ := withKey(t.Context(), "reused over Connect")
			_, err := kanban.CreateCard(ctx, &switchboardv1.CreateCardRequest{Card: &switchboardv1.CardInput{Title: &title}})
			servertest.WantCode(t, err, connect.CodeFailedPrecondition)
			return nil
		})
	})
	if got := s.DB.QueueItem.GetX(t.Context(), item.ID); got.Title != "Same" || !got.UpdatedAt.Equal(item.UpdatedAt) {
		t.Fatalf("the first item changed: %q at %v", got.Title, got.UpdatedAt)
	}
}

// bobItem is an item of bob's for others to reach for.
func bobItem(t *testing.T, s *servertest.Server, bob *servertest.Account) string {
	t.Helper()
	res := s.WithKey(bob.NewKey("bob")).Do(http.MethodPost, "/api/v2/queue", `{"title":"Bob's"}`)
	servertest.WantStatus(t, res, http.StatusCreated)
	return s.DB.QueueItem.Query().OnlyX(t.Context()).ID
}

// wantNothingWritten checks that ann has no item and bob's is untouched.
func wantNothingWritten(t *testing.T, s *servertest.Server, annID, bobs string) {
	t.Helper()
	if n := creates[0].count(t, s, annID); n != 0 {
		t.Fatalf("%d items of ann's written", n)
	}
	if got := s.DB.QueueItem.GetX(t.Context(), bobs); got.Title != "Bob's" {
		t.Fatalf("bob's item changed: %q", got.Title)
	}
}

// connectError is err as a Connect error with code.
func connectError(t *testing.T, err error, code connect.Code) *connect.Error {
	t.Helper()
	var ce *connect.Error
	if !errors.As(err, &ce) || ce.Code() != code {
		t.Fatalf("error %v, want code %v", err, code)
	}
	return ce
}

// wantKeyFree checks that a failed request left no record under key.
func wantKeyFree(t *testing.T, s *servertest.Server, key string) {
	t.Helper()
	n := must(t)(s.DB.IdempotencyRecord.Query().Where(idempotencyrecord.KeyEQ(key)).Count(t.Context()))
	if n != 0 {
		t.Fatalf("the failed request left %d records under its key", n)
	}
}

// refuseQueueWrites makes the database fail every insert into queue_items
// with an error that is none of the refusals storage errors map to, so the
// request fails as on a broken database (500, internal); restore lifts it.
// A trigger, so the real storage path runs and nothing is mocked.
func refuseQueueWrites(t *testing.T, s *servertest.Server) (restore func()) {
	t.Helper()
	install := []string{`CREATE TRIGGER refuse_queue_writes BEFORE INSERT ON queue_items
		BEGIN SELECT RAISE(ABORT, 'test: the disk is gone'); END`}
	lift := []string{`DROP TRIGGER refuse_queue_writes`}
	if s.DB.Dialect == dialect.Postgres {
		install = []string{
			`CREATE FUNCTION refuse_queue_writes() RETURNS trigger LANGUAGE plpgsql AS
			$$ BEGIN RAISE EXCEPTION 'test: the disk is gone'; END $$`,
			`CREATE TRIGGER refuse_queue_writes BEFORE INSERT ON queue_items
			FOR EACH ROW EXECUTE FUNCTION refuse_queue_writes()`,
		}
		lift = []string{`DROP TRIGGER refuse_queue_writes ON queue_items`, `DROP FUNCTION refuse_queue_writes()`}
	}
	exec := func(stmts []string) {
		for _, q := range stmts {
			if _, err := s.DB.SQL.ExecContext(t.Context(), q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
	}
	exec(install)
	return func() { exec(lift) }
}
