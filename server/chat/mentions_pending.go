package chat

import (
	"context"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/apperr"
)

// mentionsPending stands in for ListMentions until mentions.go defines it on
// Service, whose method then shadows this one: delete this file with that
// change. It refuses what the contract refuses (type is required) so the
// contract tests hold meanwhile, and answers 501 otherwise.
type mentionsPending struct{}

func (mentionsPending) ListMentions(_ context.Context, req *switchboardv1.ListMentionsRequest) (*switchboardv1.ListMentionsResponse, error) {
	if req.GetType() == "" {
		return nil, apperr.Invalid("type is required: people, agents, teams, commands or channels")
	}
	return nil, &apperr.Error{Kind: apperr.KindUnimplemented, Message: "mention search is not available yet"}
}
