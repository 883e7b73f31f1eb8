package httpapi

import (
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

func init() { fixtureSets = append(fixtureSets, dashboardFixtures) }

func dashboardFixtures() []fixture {
	return []fixture{
		single("GetWaitingResponse", "full", &switchboardv1.GetWaitingResponse{
			ConnectionRequests: 1, Relays: 2, Invites: 3, StoreReviews: 4, ContractReviews: 5, Total: 15,
		}),
		single("GetWaitingResponse", "sparse", &switchboardv1.GetWaitingResponse{}),
	}
}
