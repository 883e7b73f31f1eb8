package contract_test

import (
	"net/http"
	"testing"

	"github.com/switchboard-hq/switchboard/server/contract"
)

// RULINGS "Idempotency": every changing procedure takes Idempotency-Key;
// streams and reads do not; a few refuse it with a reason
// (docs/decisions.md, "Idempotency").
func TestIdempotencyTable(t *testing.T) {
	table := contract.MustLoad()
	for _, tc := range []struct {
		name string
		want contract.Idempotency
	}{
		{"/switchboard.v1.QueueService/CreateQueueItem", contract.IdempotencyKeyed},
		{"/switchboard.v1.KanbanService/CreateCard", contract.IdempotencyKeyed},
		{"/switchboard.v1.KanbanService/UpdateCard", contract.IdempotencyKeyed},
		{"/switchboard.v1.SharedChatService/SendMessage", contract.IdempotencyKeyed},
		{"/switchboard.v1.StoreExecutionService/ExecuteStoreAgent", contract.IdempotencyKeyed},
		{"/switchboard.v1.StoreReviewService/StoreLifecycle", contract.IdempotencyKeyed},
		{"/switchboard.v1.QueueService/ListQueueItems", contract.IdempotencyIgnored},
		{"/switchboard.v1.EventService/StreamEvents", contract.IdempotencyIgnored},
		{"/switchboard.v1.KeyService/CreateKey", contract.IdempotencyRefused},
		{"/switchboard.v1.DeveloperService/CreateConnectToken", contract.IdempotencyRefused},
		{"/switchboard.v1.AccountService/Login", contract.IdempotencyRefused},
		{"/switchboard.v1.StoreExecutionService/DeliverStoreCallback", contract.IdempotencyRefused},
	} {
		p, ok := table.ByName(tc.name)
		if !ok || p.Idempotency != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, p.Idempotency, tc.want)
		}
	}
	// Fail closed: whatever is not a read or a stream is keyed, or refused
	// with a reason a client is told.
	for _, p := range table.All() {
		changes := !p.Descriptor.IsStreamingServer() && !p.Descriptor.IsStreamingClient()
		for _, b := range p.Bindings {
			changes = changes && b.Method != http.MethodGet
		}
		switch {
		case changes && p.Idempotency == contract.IdempotencyIgnored:
			t.Errorf("%s changes something but ignores Idempotency-Key", p.Name)
		case p.Idempotency == contract.IdempotencyRefused && p.IdempotencyNote == "":
			t.Errorf("%s refuses Idempotency-Key without a reason", p.Name)
		}
	}
}
