package httpapi

import (
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

// fixture is one response value the API returns, in one variant.
type fixture struct {
	message string // Go/proto message name, the golden file prefix
	variant string // "full", "sparse", ...
	msg     proto.Message
	// restBody is what grpc-gateway hands render.RESTMarshaler for this response:
	// the message itself, or the response_body field's value.
	restBody any
	// restField names the response_body field when restBody is not msg.
	restField string
}

func (f fixture) name() string { return f.message + "." + f.variant }

// Fixed instants: no time.Now anywhere in the fixtures, so golden files are stable.
var (
	tsCreated  = timestamppb.New(time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC))
	tsUsed     = timestamppb.New(time.Date(2025, 3, 14, 9, 26, 53, 589_000_000, time.UTC))
	tsExpires  = timestamppb.New(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	tsGenerate = timestamppb.New(time.Date(2025, 6, 30, 23, 59, 59, 123_456_789, time.UTC))
)

func fullUser() *switchboardv1.User {
	return &switchboardv1.User{
		Id:        "ckx1f0a9z0000qzrmn831i7rn",
		Username:  "ada",
		Email:     "ada@example.com",
		Name:      "Ada Lovelace",
		Role:      "admin",
		Avatar:    proto.String("https://example.com/avatars/ada.png"),
		CreatedAt: tsCreated,
	}
}

func sparseUser() *switchboardv1.User {
	return &switchboardv1.User{
		Id:        "ckx1f0b3k0001qzrm4q2w8e5t",
		Username:  "bob",
		Email:     "bob@example.com",
		Name:      "Bob",
		Role:      "member",
		CreatedAt: tsCreated,
	}
}

func fullKey() *switchboardv1.ApiKey {
	return &switchboardv1.ApiKey{
		Id:         "ckx1f0c7p0002qzrm9d3j1v6y",
		Label:      "CI runner",
		Scopes:     []string{"queue", "kanban", "settings"},
		Prefix:     "sbk_3fA9",
		CreatedAt:  tsCreated,
		LastUsedAt: tsUsed,
		ExpiresAt:  tsExpires,
		Active:     true,
	}
}

func sparseKey() *switchboardv1.ApiKey {
	return &switchboardv1.ApiKey{
		Id:        "ckx1f0d2m0003qzrmc5h7k2xa",
		Label:     "laptop",
		Prefix:    "sbk_Zq01",
		CreatedAt: tsCreated,
		Active:    true,
	}
}

func fullUpdate() *switchboardv1.Update {
	return &switchboardv1.Update{
		Id:               "2025-06-30-rest-mirror",
		Date:             "2025-06-30",
		Time:             proto.String("2:30 PM"),
		Title:            "REST mirror",
		Subtitle:         proto.String("Every RPC now has a REST twin"),
		Tags:             []string{"api", "rest"},
		Content:          "The v1 contract is served under /api/v2 as well.",
		AdoptionModuleId: proto.String("rest-mirror"),
	}
}

func sparseUpdate() *switchboardv1.Update {
	return &switchboardv1.Update{
		Id:      "2025-01-02-first",
		Date:    "2025-01-02",
		Title:   "First release",
		Content: "Hello.",
	}
}

func single(message, variant string, m proto.Message) fixture {
	return fixture{message: message, variant: variant, msg: m, restBody: m}
}

func resolve(variant string, m *switchboardv1.ResolveUsersResponse) fixture {
	return fixture{message: "ResolveUsersResponse", variant: variant, msg: m, restBody: m.GetUsers(), restField: "users"}
}

// fixtureSets are the fixtures of each area; an area's fixtures file adds its
// set in an init function.
var fixtureSets = []func() []fixture{coreFixtures}

// responseFixtures returns fresh values of every response message the API
// answers with.
func responseFixtures() []fixture {
	var out []fixture
	for _, set := range fixtureSets {
		out = append(out, set()...)
	}
	return out
}

// coreFixtures covers accounts, keys, settings and the changelog.
func coreFixtures() []fixture {
	return []fixture{
		single("GetSettingsResponse", "full", &switchboardv1.GetSettingsResponse{
			Mode: "cockpit", QueueAutoApprove: true, AssistantName: proto.String("Jarvis"),
			GoalsEnabled: true, OnboardingComplete: true, OnboardingPhase: 3,
			ServiceKeys: []*switchboardv1.ServiceKey{
				{Service: "webhook_push", Url: "https://hooks.example.com/switchboard", SecretSet: true},
				{Service: "webhook_push", Url: "https://ops.example.org/in?team=7", SecretSet: true},
			},
			ProfileVisibility: "network", Bio: "Runs the <night> shift & \"more\"", Timezone: "Europe/Paris",
			HiddenBoardColumns: []string{"leads", "qualifying"},
		}),
		single("GetSettingsResponse", "sparse", &switchboardv1.GetSettingsResponse{Mode: "cockpit"}),

		single("UpdateSettingsResponse", "full", &switchboardv1.UpdateSettingsResponse{
			QueueAutoApprove: proto.Bool(true), Mode: proto.String("cockpit"),
		}),
		single("UpdateSettingsResponse", "sparse", &switchboardv1.UpdateSettingsResponse{}),
		single("UpdateSettingsResponse", "timezone", &switchboardv1.UpdateSettingsResponse{Timezone: proto.String("America/New_York")}),
		// The profile's fields answer as applied; an emptied bio is "".
		single("UpdateSettingsResponse", "profile", &switchboardv1.UpdateSettingsResponse{
			ProfileVisibility: proto.String("private"), Bio: proto.String(""),
		}),
		// Supplied serviceKeys answer the stored list, without secrets.
		single("UpdateSettingsResponse", "service_keys", &switchboardv1.UpdateSettingsResponse{
			ServiceKeys: []*switchboardv1.ServiceKey{
				{Service: "webhook_push", Url: "https://hooks.example.com/switchboard", SecretSet: true},
			},
		}),
		// A clear answers the names it cleared; the empty list is not applied data.
		single("UpdateSettingsResponse", "cleared", &switchboardv1.UpdateSettingsResponse{
			Mode: proto.String("cockpit"), ClearFields: []string{"serviceKeys"},
		}),
		// Hidden board columns answer the stored set; a clear names the field.
		single("UpdateSettingsResponse", "hidden_columns", &switchboardv1.UpdateSettingsResponse{
			HiddenBoardColumns: []string{"paused", "completed"},
		}),
		single("UpdateSettingsResponse", "hidden_columns_cleared", &switchboardv1.UpdateSettingsResponse{
			ClearFields: []string{"hiddenBoardColumns"},
		}),
		// A supplied false is an applied field: written, not omitted.
		single("UpdateSettingsResponse", "queue_only", &switchboardv1.UpdateSettingsResponse{
			QueueAutoApprove: proto.Bool(false),
		}),

		single("ListUpdatesResponse", "full", &switchboardv1.ListUpdatesResponse{
			Updates: []*switchboardv1.Update{fullUpdate(), {
				Id: "2025-05-01-kanban", Date: "2025-05-01", Time: proto.String("9:00 AM"),
				Title: "Kanban", Subtitle: proto.String("Cards & checklists"), Tags: []string{"kanban"},
				Content: "Boards <with> \"quotes\".", AdoptionModuleId: proto.String("kanban"),
			}},
			Total: 42, Returned: 2, Source: "switchboard", GeneratedAt: tsGenerate,
		}),
		single("ListUpdatesResponse", "sparse", &switchboardv1.ListUpdatesResponse{
			Source: "switchboard", GeneratedAt: tsGenerate,
		}),
		single("ListUpdatesResponse", "sparse_entry", &switchboardv1.ListUpdatesResponse{
			Updates: []*switchboardv1.Update{sparseUpdate()},
			Total:   1, Returned: 1, Source: "switchboard", GeneratedAt: tsGenerate,
		}),

		single("SetupResponse", "full", &switchboardv1.SetupResponse{User: fullUser()}),
		single("SetupResponse", "sparse", &switchboardv1.SetupResponse{User: sparseUser()}),
		single("SignupResponse", "full", &switchboardv1.SignupResponse{User: fullUser()}),
		single("SignupResponse", "sparse", &switchboardv1.SignupResponse{User: sparseUser()}),
		single("LoginResponse", "full", &switchboardv1.LoginResponse{User: fullUser()}),
		single("LoginResponse", "sparse", &switchboardv1.LoginResponse{User: sparseUser()}),
		single("LogoutResponse", "full", &switchboardv1.LogoutResponse{}),
		single("GetCurrentUserResponse", "full", &switchboardv1.GetCurrentUserResponse{User: fullUser()}),
		single("GetCurrentUserResponse", "sparse", &switchboardv1.GetCurrentUserResponse{User: sparseUser()}),

		single("GetSetupResponse", "full", &switchboardv1.GetSetupResponse{OwnerExists: true}),
		single("GetSetupResponse", "sparse", &switchboardv1.GetSetupResponse{}),

		single("CheckUsernameResponse", "full", &switchboardv1.CheckUsernameResponse{
			Available: false, Username: "admin", Reason: proto.String("reserved"),
		}),
		single("CheckUsernameResponse", "sparse", &switchboardv1.CheckUsernameResponse{
			Available: true, Username: "ada_l",
		}),

		resolve("full", &switchboardv1.ResolveUsersResponse{Users: map[string]*switchboardv1.ResolvedUser{
			"ada": {Id: "ckx1f0a9z0000qzrmn831i7rn", Name: "Ada Lovelace", Username: "ada",
				Avatar: proto.String("https://example.com/avatars/ada.png"), Type: "user"},
			"core-team": {Id: "ckx1f0e8w0004qzrm2b6n9c3d", Name: "Core team", Username: "core-team",
				Avatar: proto.String("https://example.com/avatars/core.png"), Type: "team"},
		}}),
		resolve("sparse", &switchboardv1.ResolveUsersResponse{}),
		resolve("sparse_entry", &switchboardv1.ResolveUsersResponse{Users: map[string]*switchboardv1.ResolvedUser{
			"bob": {Id: "ckx1f0b3k0001qzrm4q2w8e5t", Name: "Bob", Username: "bob", Type: "user"},
		}}),

		single("ListKeysResponse", "full", &switchboardv1.ListKeysResponse{
			Keys: []*switchboardv1.ApiKey{fullKey(), func() *switchboardv1.ApiKey {
				k := fullKey()
				k.Id, k.Label, k.Prefix, k.Active = "ckx1f0f1r0005qzrm7x4p0s8g", "old deploy", "sbk_Old9", false
				k.Scopes = []string{"mcp"}
				return k
			}()},
		}),
		single("ListKeysResponse", "sparse", &switchboardv1.ListKeysResponse{}),
		single("ListKeysResponse", "sparse_entry", &switchboardv1.ListKeysResponse{Keys: []*switchboardv1.ApiKey{sparseKey()}}),

		single("CreateKeyResponse", "full", &switchboardv1.CreateKeyResponse{
			ApiKey: "sbk_3fA9c2Lx0QmT7vYb1KdN8sWe4RhUj6Po", Key: fullKey(),
		}),
		single("CreateKeyResponse", "sparse", &switchboardv1.CreateKeyResponse{
			ApiKey: "sbk_Zq01b7Hn3TfKx9Lm2VcR5sQa8WdYe4Pu", Key: sparseKey(),
		}),

		single("DeleteKeyResponse", "full", &switchboardv1.DeleteKeyResponse{Key: func() *switchboardv1.ApiKey {
			k := fullKey()
			k.Active = false
			return k
		}()}),
		single("DeleteKeyResponse", "sparse", &switchboardv1.DeleteKeyResponse{Key: func() *switchboardv1.ApiKey {
			k := sparseKey()
			k.Active = false
			return k
		}()}),
	}
}
