package httpapi

import (
	"google.golang.org/protobuf/types/known/structpb"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

func init() { fixtureSets = append(fixtureSets, networkShareFixtures) }

// networkShareFixtures cover the shared reads' answers: a rating with the
// reputation it made, an entity search with each kind and an empty one, and
// a tool call's structured result and a bare one.
func networkShareFixtures() []fixture {
	mode, _ := structpb.NewStruct(map[string]any{"mode": "cockpit", "modes": []any{map[string]any{"name": "cockpit", "description": "The operator drives."}}})
	return []fixture{
		single("RateRelayResponse", "rated", &switchboardv1.RateRelayResponse{RelayId: "ckx5f0a1b0000qzrmrelay0001", Rating: 4,
			Reputation: &switchboardv1.NetworkReputation{Average: 4.5, Count: 2}}),
		single("SearchSharedEntitiesResponse", "each", &switchboardv1.SearchSharedEntitiesResponse{Results: []*switchboardv1.SharedEntity{
			{Kind: "profile", Id: "ckx5f0a1b0000qzrmuser00001", Title: "Bob"},
			{Kind: "card", Id: "ckx5f0a1b0000qzrmcard00001", Title: "Plan <for> carol", Status: "todo"},
			{Kind: "thread", Id: "ckx5f0a1b0000qzrmrelay0001", Title: "Plan review", Status: "delivered"},
		}}),
		single("SearchSharedEntitiesResponse", "empty", &switchboardv1.SearchSharedEntitiesResponse{}),
		single("CallSharedToolResponse", "mode", &switchboardv1.CallSharedToolResponse{Tool: "mode_get", Result: mode}),
		single("ReceiveCardStatusResponse", "one", &switchboardv1.ReceiveCardStatusResponse{Entries: 1}),
		single("CallSharedToolResponse", "bare", &switchboardv1.CallSharedToolResponse{Tool: "job_browse"}),
	}
}
