package throughtest

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/switchboard-hq/switchboard/server/assistant/tags"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// BenchmarkReplyTags is issue 16's executor benchmark: a reply's three
// tags parsed and run (create_card, dispatch_queue through the capability
// gate, edit_queue_item) against the same three changes made through the
// API by the operator's session over loopback HTTP, in the same run. The
// ratio of the two ns/op is the executor's cost per reply relative to the
// API's (bench/RESULTS.md).
func BenchmarkReplyTags(b *testing.B) {
	w := newAssistantWorld(b)
	ann := w.ann.Session
	res := ann.Do(http.MethodPost, "/api/v2/queue", map[string]any{"title": "Edited each round"})
	servertest.WantStatus(b, res, http.StatusCreated)
	item := res.JSON(b)["item"].(map[string]any)["id"].(string)
	ctx := auth.WithPrincipal(context.Background(), &auth.Principal{UserID: w.ann.ID, Username: w.ann.Username, Via: auth.ViaSession})

	b.Run("tags", func(b *testing.B) {
		i := 0
		for b.Loop() {
			i++
			reply := fmt.Sprintf(`Done: [[create_card {"title":"Card %d"}]] and [[dispatch_queue {"title":"Reply to Ada %d","type":"email"}]],
then [[edit_queue_item {"id":%q,"title":"Round %d"}]].`, i, i, item, i)
			for _, t := range w.srv.App.Assistant.Run(ctx, tags.Parse(reply), false) {
				if !t.GetOk() {
					b.Fatalf("%s: %s", t.GetTag(), t.GetError())
				}
			}
		}
	})
	b.Run("api", func(b *testing.B) {
		i := 0
		for b.Loop() {
			i++
			servertest.WantStatus(b, ann.Do(http.MethodPost, "/api/v2/kanban", map[string]any{"title": fmt.Sprintf("Card %d", i)}), http.StatusCreated)
			servertest.WantStatus(b, ann.Do(http.MethodPost, "/api/v2/queue", map[string]any{"title": fmt.Sprintf("Reply to Ada %d", i),
				"metadata": `{"taskType":"email"}`}), http.StatusCreated)
			servertest.WantStatus(b, ann.Do(http.MethodPut, "/api/v2/queue/"+item, map[string]any{"title": fmt.Sprintf("Round %d", i)}), http.StatusOK)
		}
	})
}
