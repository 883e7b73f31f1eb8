package assistant

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/llm"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/assistant/prompt"
	"github.com/switchboard-hq/switchboard/server/assistant/tags"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/page"
	"github.com/switchboard-hq/switchboard/server/render"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/assistantmessage"
)

// Conversation paging (docs/decisions.md "The assistant (issue 16)").
const (
	// DefaultMessages is a page of the conversation without a stated limit.
	DefaultMessages = 30
	// tagsTimeout bounds running a finished reply's tags and storing it,
	// which go on after the operator's client has gone away.
	tagsTimeout = time.Minute
)

// PromptFunc assembles what the provider is sent for the operator's
// message (prompt.Sources.Prompt, which reads the earlier turns through
// Turns). Its Outside says the prompt holds text from outside the
// operator: the reply's risky tags then wait for confirmation.
type PromptFunc func(ctx context.Context, p *auth.Principal, message string) (prompt.Prompt, error)

// Service is the AssistantService: the operator's conversation with the
// assistant (SendChat, ListAssistantMessages) and its action tags
// (ExecuteTag, from the Executor).
type Service struct {
	*Executor
	DB  *db.DB
	Now func() time.Time
	// LLM is the provider; nil answers SendChat 503.
	LLM *llm.Client
	// Streams holds each account to llm.StreamsPerAccount replies at once.
	Streams *llm.Limiter
	// Prompt assembles what the provider is sent; nil sends the message
	// alone under a one-line system prompt.
	Prompt PromptFunc
}

// errNoProvider is SendChat on an instance without a language model.
var errNoProvider = &apperr.Error{Kind: apperr.KindUnavailable,
	Message: "the assistant needs a language model, and none is configured on this instance (--llm-base-url, --llm-model)"}

// errTooManyStreams is a third reply of one account at once.
var errTooManyStreams = &apperr.Error{Kind: apperr.KindRateLimited, RetryAfter: time.Second,
	Message: "this account already has two assistant replies streaming: wait for one to finish or stop it"}

// errReplyFailed is a provider that failed midway; its cause is logged,
// never shown (it may quote the provider's own words).
var errReplyFailed = &apperr.Error{Kind: apperr.KindUnavailable,
	Message: "the assistant's reply failed before it finished; nothing of it was kept and none of its tags ran"}

// unreachable is a provider that could not be reached at all: the operator
// is told so, with the address the instance was configured with (never
// its key), since that is what to check.
func unreachable(u *llm.UnreachableError) *apperr.Error {
	return &apperr.Error{Kind: apperr.KindUnavailable, Message: "the assistant's language model at " + u.URL +
		" could not be reached (" + u.Reason + "): check --llm-base-url and that the provider is running; nothing of the reply was kept"}
}

// TurnStarted is published when the operator begins a turn of the
// conversation with the assistant, before its prompt is assembled: what
// waits for "the next conversation" hears it.
type TurnStarted struct{ UserID string }

// reply is one admitted SendChat, ready to stream.
type reply struct {
	s       *Service
	p       *auth.Principal
	prompt  prompt.Prompt
	release func()
}

// begin admits a SendChat: everything that can refuse it before the stream
// starts (bad input 400, no provider 503, a third stream 429), then stores
// the operator's message. The caller must run or close what it returns.
func (s *Service) begin(ctx context.Context, req *switchboardv1.SendChatRequest) (*reply, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	message := strings.TrimSpace(req.GetMessage())
	if message == "" {
		return nil, apperr.Invalid("message must not be empty")
	}
	if s.LLM == nil {
		return nil, errNoProvider
	}
	release, err := s.Streams.Acquire(p.UserID)
	if errors.Is(err, llm.ErrTooManyStreams) {
		return nil, errTooManyStreams
	} else if err != nil {
		return nil, apperr.Internal(err)
	}
	r := &reply{s: s, p: p, release: release}
	// What waited for the next conversation (the digests) is told first, so
	// the prompt reads it.
	err = s.DB.InTx(ctx, func(tx *db.Tx) error { return tx.Publish(ctx, TurnStarted{UserID: p.UserID}) })
	if err == nil {
		r.prompt, err = s.prompt(ctx, p, message)
	}
	if err == nil {
		_, err = s.DB.AssistantMessage.Create().SetUserID(p.UserID).SetRole(assistantmessage.RoleUser).
			SetContent(message).SetCreatedAt(s.Now()).Save(ctx)
	}
	if err != nil {
		release()
		return nil, err
	}
	return r, nil
}

// prompt is s.Prompt, or the plain one.
func (s *Service) prompt(ctx context.Context, p *auth.Principal, message string) (prompt.Prompt, error) {
	if s.Prompt != nil {
		return s.Prompt(ctx, p, message)
	}
	return prompt.Prompt{Messages: []llm.Message{{Role: "system", Content: "You are the operator's assistant."},
		{Role: "user", Content: message}}}, nil
}

// run streams the provider's reply as token events; once it has finished,
// runs its tags, stores it and sends tags_executed and done. A provider
// that fails, or a client that goes away, ends it before any tag runs: ctx
// is the operator's request, and cancelling it cancels the provider call.
func (r *reply) run(ctx context.Context, send func(*switchboardv1.SendChatResponse) error) error {
	defer r.release()
	var sendErr error
	text, err := r.s.LLM.Stream(ctx, r.prompt.Messages, func(piece string) error {
		sendErr = send(&switchboardv1.SendChatResponse{Event: &switchboardv1.SendChatResponse_Token{
			Token: &switchboardv1.ChatToken{Text: piece}}})
		return sendErr
	})
	switch {
	case sendErr != nil || ctx.Err() != nil:
		return errors.Join(sendErr, context.Cause(ctx)) // the operator's client is gone
	case err != nil:
		if u, ok := errors.AsType[*llm.UnreachableError](err); ok {
			slog.WarnContext(ctx, "assistant: the provider is unreachable", "err", err)
			return unreachable(u)
		}
		slog.WarnContext(ctx, "assistant: the provider failed midway", "err", err)
		return errReplyFailed
	}
	// The reply is finished: its tags run and it is kept even if the client
	// goes away now (a finished reply is never half-applied).
	done, cancel := context.WithTimeout(context.WithoutCancel(ctx), tagsTimeout)
	defer cancel()
	executed := r.s.Run(done, tags.Parse(text), r.prompt.Outside)
	id, err := r.s.store(done, r.p.UserID, text, executed, r.prompt.Outside)
	if err != nil {
		return err
	}
	if err := send(&switchboardv1.SendChatResponse{Event: &switchboardv1.SendChatResponse_TagsExecuted{
		TagsExecuted: &switchboardv1.ChatTagsExecuted{Tags: executed}}}); err != nil {
		return err
	}
	return send(&switchboardv1.SendChatResponse{Event: &switchboardv1.SendChatResponse_Done{
		Done: &switchboardv1.ChatDone{MessageId: id}}})
}

// store keeps a finished reply with what its tags did, and whether its
// prompt held outside text (a later prompt that carries it is outside too).
func (s *Service) store(ctx context.Context, userID, text string, executed []*switchboardv1.ExecutedTag, outside bool) (string, error) {
	rendered, err := renderTags(executed)
	if err != nil {
		return "", apperr.Internal(err)
	}
	row, err := s.DB.AssistantMessage.Create().SetUserID(userID).SetRole(assistantmessage.RoleAssistant).
		SetContent(text).SetTags(rendered).SetOutside(outside).SetCreatedAt(s.Now()).Save(ctx)
	if err != nil {
		return "", err
	}
	return row.ID, nil
}

// renderTags is the executed tags as a JSON array, each as the REST mirror
// renders it.
func renderTags(executed []*switchboardv1.ExecutedTag) (string, error) {
	b := []byte{'['}
	for i, t := range executed {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = render.AppendREST(b, t); err != nil {
			return "", err
		}
	}
	return string(append(b, ']')), nil
}

// parseTags reads what renderTags wrote.
func parseTags(stored string) ([]*switchboardv1.ExecutedTag, error) {
	if stored == "" {
		return nil, nil
	}
	var raw []json.RawMessage
	if err := json.Unmarshal([]byte(stored), &raw); err != nil {
		return nil, err
	}
	out := make([]*switchboardv1.ExecutedTag, len(raw))
	for i, r := range raw {
		out[i] = &switchboardv1.ExecutedTag{}
		if err := (render.RESTMarshaler{}).Unmarshal(r, out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Turns reads an account's latest n turns from d, oldest first
// (prompt.Sources.Turns).
func Turns(d *db.DB) func(ctx context.Context, userID string, n int) ([]prompt.Turn, error) {
	return func(ctx context.Context, userID string, n int) ([]prompt.Turn, error) {
		return turns(ctx, d, userID, n)
	}
}

func turns(ctx context.Context, d *db.DB, userID string, n int) ([]prompt.Turn, error) {
	rows, err := d.AssistantMessage.Query().Where(assistantmessage.UserID(userID)).
		Order(ent.Desc(assistantmessage.FieldCreatedAt), ent.Desc(assistantmessage.FieldID)).Limit(n).All(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]prompt.Turn, len(rows))
	for i, r := range rows {
		out[len(rows)-1-i] = prompt.Turn{Role: string(r.Role), Content: r.Content, Outside: r.Outside}
	}
	return out, nil
}

// SendChat is the Connect form of POST /api/chat/send: the same events, and
// a failure ends the stream with its error.
func (s *Service) SendChat(ctx context.Context, req *switchboardv1.SendChatRequest, stream *connect.ServerStream[switchboardv1.SendChatResponse]) error {
	r, err := s.begin(ctx, req)
	if err != nil {
		return err
	}
	return r.run(ctx, stream.Send)
}

// ListAssistantMessages pages the conversation from the newest back, each
// page oldest first.
func (s *Service) ListAssistantMessages(ctx context.Context, req *switchboardv1.ListAssistantMessagesRequest) (*switchboardv1.ListAssistantMessagesResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	limit, err := page.Limit(req.GetLimit(), DefaultMessages, page.MaxLimit)
	if err != nil {
		return nil, err
	}
	q := s.DB.AssistantMessage.Query().Where(assistantmessage.UserID(p.UserID))
	if req.GetCursor() != "" {
		at, id, err := page.DecodeCursor(req.GetCursor())
		if err != nil {
			return nil, err
		}
		// Strictly older in (createdAt, id) order: pages neither overlap nor
		// leave a gap among equal timestamps.
		q = q.Where(assistantmessage.Or(assistantmessage.CreatedAtLT(at),
			assistantmessage.And(assistantmessage.CreatedAt(at), assistantmessage.IDLT(id))))
	}
	rows, err := q.Order(ent.Desc(assistantmessage.FieldCreatedAt), ent.Desc(assistantmessage.FieldID)).
		Limit(limit + 1).All(ctx)
	if err != nil {
		return nil, err
	}
	pagination := &switchboardv1.ChatPagination{Limit: int32(limit)}
	if len(rows) > limit {
		rows = rows[:limit]
		pagination.HasMore = true
		last := rows[len(rows)-1]
		pagination.Cursor = proto.String(page.EncodeCursor(last.CreatedAt, last.ID))
	}
	slices.Reverse(rows)
	out := make([]*switchboardv1.AssistantMessage, len(rows))
	for i, r := range rows {
		executed, err := parseTags(r.Tags)
		if err != nil {
			return nil, apperr.Internal(err)
		}
		out[i] = &switchboardv1.AssistantMessage{Id: r.ID, Role: string(r.Role), Content: r.Content,
			Tags: executed, CreatedAt: timestamppb.New(r.CreatedAt)}
	}
	return &switchboardv1.ListAssistantMessagesResponse{Messages: out, Pagination: pagination}, nil
}
