package assistant

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/switchboard-hq/switchboard/ent/user"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
)

// economySpecs are the task economy's tags (document 2 "Action tags";
// RULINGS "The task economy"), each through EconomyService's or the
// capability routes' own method, offered only where the service exists.
// Which of them wait for the operator after outside text is their effects'
// (effects.go).
func economySpecs(e *Executor) []*spec {
	var out []*spec
	if sv := e.Economy; sv != nil {
		out = append(out,
			&spec{name: "hire_provider", description: "Hire a user or a connection's peer: holds the price (provider {userId | connectionId}, taskType, title, scope, priceCents, currency, dueAt)",
				run: func(ctx context.Context, _ *auth.Principal, body json.RawMessage) (proto.Message, error) {
					return hireProvider(ctx, e, body)
				}},
			&spec{name: "find_providers", description: "Rank who could take a task (taskType, skills, maxPriceCents, limit)",
				run: func(ctx context.Context, _ *auth.Principal, body json.RawMessage) (proto.Message, error) {
					return asRequest(ctx, "find_providers", body, &switchboardv1.FindProvidersRequest{}, sv.FindProviders)
				}},
			&spec{name: "project_update", description: "Tell the other side of a contract something (contractId, text)",
				run: func(ctx context.Context, _ *auth.Principal, body json.RawMessage) (proto.Message, error) {
					a, err := contractArgs[struct {
						Text string `json:"text"`
					}]("project_update", body)
					if err != nil {
						return nil, err
					}
					return call(ctx, sv.PostContractUpdate, &switchboardv1.PostContractUpdateRequest{Id: a.id, Text: a.v.Text})
				}},
			&spec{name: "request_info", description: "Ask the other side of a contract a question (contractId, question)",
				run: func(ctx context.Context, _ *auth.Principal, body json.RawMessage) (proto.Message, error) {
					a, err := contractArgs[struct {
						Question string `json:"question"`
					}]("request_info", body)
					if err != nil {
						return nil, err
					}
					return call(ctx, sv.AskContractQuestion, &switchboardv1.AskContractQuestionRequest{Id: a.id, Question: a.v.Question})
				}},
			&spec{name: "add_project_scope", description: "Propose more scope to a contract's provider (contractId, item, priceCents)",
				run: func(ctx context.Context, _ *auth.Principal, body json.RawMessage) (proto.Message, error) {
					a, err := contractArgs[struct {
						Item       string `json:"item"`
						PriceCents int32  `json:"priceCents"`
					}]("add_project_scope", body)
					if err != nil {
						return nil, err
					}
					return call(ctx, sv.ProposeContractScope, &switchboardv1.ProposeContractScopeRequest{Id: a.id, Item: a.v.Item,
						PriceCents: a.v.PriceCents})
				}},
			&spec{name: "suggest_close_project", description: "Ask a contract's client to close it (contractId)",
				run: func(ctx context.Context, _ *auth.Principal, body json.RawMessage) (proto.Message, error) {
					a, err := contractArgs[struct{}]("suggest_close_project", body)
					if err != nil {
						return nil, err
					}
					return call(ctx, sv.SuggestCloseContract, &switchboardv1.SuggestCloseContractRequest{Id: a.id})
				}},
			&spec{name: "submit_deliverable", description: "Deliver a contract's work (contractId, summary, url or documentId)",
				run: func(ctx context.Context, _ *auth.Principal, body json.RawMessage) (proto.Message, error) {
					a, err := contractArgs[struct {
						Summary    string  `json:"summary"`
						URL        *string `json:"url"`
						DocumentID *string `json:"documentId"`
					}]("submit_deliverable", body)
					if err != nil {
						return nil, err
					}
					return call(ctx, sv.DeliverContract, &switchboardv1.DeliverContractRequest{Id: a.id, Summary: a.v.Summary,
						Url: a.v.URL, DocumentId: a.v.DocumentID})
				}},
			&spec{name: "close_project", description: "Close a delivered contract: pays the provider (contractId)",
				run: func(ctx context.Context, _ *auth.Principal, body json.RawMessage) (proto.Message, error) {
					a, err := contractArgs[struct{}]("close_project", body)
					if err != nil {
						return nil, err
					}
					return call(ctx, sv.CloseContract, &switchboardv1.CloseContractRequest{Id: a.id})
				}},
			&spec{name: "dispute_project", description: "Dispute a contract: its money waits for the admin (contractId, reason)",
				run: func(ctx context.Context, _ *auth.Principal, body json.RawMessage) (proto.Message, error) {
					a, err := contractArgs[struct {
						Reason string `json:"reason"`
					}]("dispute_project", body)
					if err != nil {
						return nil, err
					}
					return call(ctx, sv.DisputeContract, &switchboardv1.DisputeContractRequest{Id: a.id, Reason: a.v.Reason})
				}},
			&spec{name: "submit_project_review", description: "Review the other side of a closed contract (contractId, overall, communication, quality, timeliness 1-5, text)",
				run: func(ctx context.Context, _ *auth.Principal, body json.RawMessage) (proto.Message, error) {
					a, err := contractArgs[struct {
						Overall       int32   `json:"overall"`
						Communication int32   `json:"communication"`
						Quality       int32   `json:"quality"`
						Timeliness    int32   `json:"timeliness"`
						Text          *string `json:"text"`
					}]("submit_project_review", body)
					if err != nil {
						return nil, err
					}
					return call(ctx, sv.ReviewContract, &switchboardv1.ReviewContractRequest{Id: a.id, Overall: a.v.Overall,
						Communication: a.v.Communication, Quality: a.v.Quality, Timeliness: a.v.Timeliness, Text: a.v.Text})
				}},
			&spec{name: "manage_review_visibility", description: "Show or hide your review's text (reviewId, visibility public|hidden)",
				run: func(ctx context.Context, _ *auth.Principal, body json.RawMessage) (proto.Message, error) {
					a, err := decode[struct {
						ReviewID   string `json:"reviewId"`
						Visibility string `json:"visibility"`
					}]("manage_review_visibility", body)
					if err != nil {
						return nil, err
					}
					if strings.TrimSpace(a.ReviewID) == "" {
						return nil, apperr.Invalid("manage_review_visibility: reviewId is required")
					}
					return call(ctx, sv.SetReviewVisibility, &switchboardv1.SetReviewVisibilityRequest{Id: a.ReviewID, Visibility: a.Visibility})
				}})
	}
	if sv := e.Jobs; sv != nil {
		out = append(out,
			&spec{name: "declare_capability", description: "Declare something you offer as a provider (taskType, skills, description, pricingModel, price, currency)",
				run: func(ctx context.Context, _ *auth.Principal, body json.RawMessage) (proto.Message, error) {
					return asRequest(ctx, "declare_capability", body, &switchboardv1.DeclareCapabilityRequest{}, sv.DeclareCapability)
				}},
			&spec{name: "list_my_capabilities", description: "List what you offer as a provider",
				run: func(ctx context.Context, _ *auth.Principal, body json.RawMessage) (proto.Message, error) {
					return asRequest(ctx, "list_my_capabilities", body, &switchboardv1.ListProviderCapabilitiesRequest{}, sv.ListProviderCapabilities)
				}},
			&spec{name: "remove_capability", description: "Remove a capability you declared (id)",
				run: func(ctx context.Context, _ *auth.Principal, body json.RawMessage) (proto.Message, error) {
					return asRequest(ctx, "remove_capability", body, &switchboardv1.RemoveProviderCapabilityRequest{}, sv.RemoveProviderCapability)
				}})
	}
	return out
}

// hireBody is hire_provider's body: HireProviderRequest, whose provider a
// tag may also write as one id (a local user's, else a connection's).
type hireBody struct {
	Provider   json.RawMessage `json:"provider"`
	TaskType   string          `json:"taskType"`
	Title      string          `json:"title"`
	Scope      json.RawMessage `json:"scope"`
	PriceCents int32           `json:"priceCents"`
	Currency   string          `json:"currency"`
	DueAt      *string         `json:"dueAt"`
}

// hireProvider is hire_provider: EconomyService's HireProvider. scope may
// be one string (RULINGS: a tag may pass one).
func hireProvider(ctx context.Context, e *Executor, body json.RawMessage) (proto.Message, error) {
	a, err := decode[hireBody]("hire_provider", body)
	if err != nil {
		return nil, err
	}
	req := &switchboardv1.HireProviderRequest{TaskType: a.TaskType, Title: a.Title, PriceCents: a.PriceCents, Currency: a.Currency,
		Provider: &switchboardv1.ProviderRef{}}
	var id string
	if json.Unmarshal(a.Provider, &id) == nil {
		if id = strings.TrimSpace(id); id == "" {
			return nil, apperr.Invalid("hire_provider: provider is required: a userId or a connectionId")
		}
		if isUser(ctx, e, id) {
			req.Provider.UserId = &id
		} else {
			req.Provider.ConnectionId = &id
		}
	} else if err := protojson.Unmarshal(a.Provider, req.Provider); err != nil {
		return nil, apperr.Invalid("hire_provider: provider must be {userId} or {connectionId}, or one id")
	}
	var one string
	if json.Unmarshal(a.Scope, &one) == nil {
		req.Scope = []string{one}
	} else if len(a.Scope) > 0 && json.Unmarshal(a.Scope, &req.Scope) != nil {
		return nil, apperr.Invalid("hire_provider: scope must be a string or a list of strings")
	}
	if a.DueAt != nil {
		var due switchboardv1.HireProviderRequest
		if err := protojson.Unmarshal([]byte(`{"dueAt":`+strconv.Quote(*a.DueAt)+`}`), &due); err != nil {
			return nil, apperr.Invalid("hire_provider: dueAt must be an RFC 3339 time")
		}
		req.DueAt = due.DueAt
	}
	return call(ctx, e.Economy.HireProvider, req)
}

// isUser says whether id is a user of this instance.
func isUser(ctx context.Context, e *Executor, id string) bool {
	if e.DB == nil {
		return false
	}
	ok, err := e.DB.User.Query().Where(user.ID(id)).Exist(ctx)
	return err == nil && ok
}

// contractCall is a contract tag's checked contractId and the rest of its body.
type contractCall[T any] struct {
	id string
	v  T
}

// contractArgs reads a contract tag's body: contractId and T's fields.
func contractArgs[T any](name string, body json.RawMessage) (contractCall[T], error) {
	var head struct {
		ContractID string `json:"contractId"`
	}
	if err := json.Unmarshal(body, &head); err != nil {
		return contractCall[T]{}, apperr.Invalid("%s: the body must be a JSON object", name)
	}
	var rest map[string]json.RawMessage
	_ = json.Unmarshal(body, &rest)
	delete(rest, "contractId")
	b, _ := json.Marshal(rest)
	v, err := decode[T](name, b)
	if err != nil {
		return contractCall[T]{}, err
	}
	if strings.TrimSpace(head.ContractID) == "" {
		return contractCall[T]{}, apperr.Invalid("%s: contractId is required", name)
	}
	return contractCall[T]{id: head.ContractID, v: v}, nil
}

// asRequest reads a tag whose body is its route's request message.
func asRequest[Req proto.Message, Resp proto.Message](ctx context.Context, name string, body json.RawMessage, req Req,
	fn func(context.Context, Req) (Resp, error)) (proto.Message, error) {
	if len(strings.TrimSpace(string(body))) > 0 {
		if err := protojson.Unmarshal(body, req); err != nil {
			return nil, apperr.Invalid("%s: %s", name, strings.TrimPrefix(err.Error(), "proto: "))
		}
	}
	return call(ctx, fn, req)
}
