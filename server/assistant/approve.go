package assistant

import (
	"context"

	"google.golang.org/protobuf/proto"

	"github.com/switchboard-hq/switchboard/ent/assistantmessage"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
)

// ExecuteTag runs one tag as the operator. With messageId it is the
// operator's approval of that reply's held tag: the tag and body must be
// the held ones, the tag is claimed first (a second approval, even a
// concurrent one, is 409), and the reply then keeps what the tag did; a
// refusal gives the held tag back, to approve again.
func (s *Service) ExecuteTag(ctx context.Context, req *switchboardv1.ExecuteTagRequest) (*switchboardv1.ExecuteTagResponse, error) {
	if req.GetMessageId() == "" {
		return s.Executor.ExecuteTag(ctx, req)
	}
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	row, err := s.DB.AssistantMessage.Query().Where(assistantmessage.ID(req.GetMessageId()),
		assistantmessage.UserID(p.UserID), assistantmessage.RoleEQ(assistantmessage.RoleAssistant)).Only(ctx)
	if err != nil {
		return nil, err
	}
	held, err := parseTags(row.Tags)
	if err != nil {
		return nil, apperr.Internal(err)
	}
	i := int(req.GetTagIndex())
	switch {
	case i >= len(held):
		return nil, apperr.Invalid("tagIndex %d: the reply has %d tags", i, len(held))
	case !held[i].GetNeedsConfirmation():
		return nil, apperr.Conflict("the reply's tag %d is not waiting for approval: it was run already", i)
	case held[i].GetTag() != req.GetTag() || !proto.Equal(held[i].GetBody(), req.GetBody()):
		return nil, apperr.Invalid("the reply's tag %d is not this tag with this body", i)
	}
	original, question := row.Tags, held[i]
	claimed := proto.Clone(question).(*switchboardv1.ExecutedTag)
	claimed.NeedsConfirmation = false
	if original, err = s.swap(ctx, row.ID, original, held, i, claimed); err != nil {
		return nil, err
	}
	res, runErr := s.Executor.ExecuteTag(ctx, req)
	done := question
	if runErr == nil {
		done = res.GetTag()
	}
	// Detached: what ran is recorded even if the operator's client left.
	if _, err := s.swap(context.WithoutCancel(ctx), row.ID, original, held, i, done); err != nil {
		return nil, err
	}
	return res, runErr
}

// swap replaces tag i of a reply whose tags are still current (as stored),
// answering the tags now stored; a reply changed meanwhile is 409.
func (s *Service) swap(ctx context.Context, id, current string, tags []*switchboardv1.ExecutedTag, i int, t *switchboardv1.ExecutedTag) (string, error) {
	tags[i] = t
	next, err := renderTags(tags)
	if err != nil {
		return "", apperr.Internal(err)
	}
	n, err := s.DB.AssistantMessage.Update().Where(assistantmessage.ID(id), assistantmessage.Tags(current)).SetTags(next).Save(ctx)
	if err != nil {
		return "", err
	}
	if n == 0 {
		return "", apperr.Conflict("the reply's tag %d is being approved already", i)
	}
	return next, nil
}
