// Package chat owns the account's shared chat (chat.proto):
// SharedChatService lists and sends messages; sent messages reach the open
// streams through the event bus (server/events).
package chat

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/chatmessage"
	"github.com/switchboard-hq/switchboard/ent/predicate"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/comms"
	"github.com/switchboard-hq/switchboard/server/events"
	"github.com/switchboard-hq/switchboard/server/page"
	"github.com/switchboard-hq/switchboard/server/render"
)

// AgentActivityFilter is the metadataType value that stands for the agent
// activity types (docs/decisions.md "Shared chat and events").
const AgentActivityFilter = "agent_activity"

// ContentRequired is the one refusal of a send without usable content
// (missing, non-string or whitespace-only).
const ContentRequired = "content is required: a non-empty string"

// A content that is not a string is refused like an empty one.
func init() { render.WordRefusal(&switchboardv1.SendMessageRequest{}, "content", ContentRequired) }

// Service implements SharedChatService. ListMentions lives in mentions.go.
type Service struct {
	DB  *db.DB
	Now func() time.Time
	// Available is the action tags this instance runs (the assistant's
	// executor): the mention list's commands. Nil lists every documented
	// tag.
	Available func() []Command
}

// ListMessages pages the chat: each page is cut newest-first and answered
// oldest-first; pagination.cursor leads to the next older page.
func (s *Service) ListMessages(ctx context.Context, req *switchboardv1.ListMessagesRequest) (*switchboardv1.ListMessagesResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	pg, err := page.Parse(req.GetLimit(), 0)
	if err != nil {
		return nil, err
	}
	where := []predicate.ChatMessage{chatmessage.UserID(p.UserID)}
	if req.GetRole() != "" {
		if err := plain("role", req.GetRole()); err != nil {
			return nil, err
		}
		where = append(where, chatmessage.Role(req.GetRole()))
	}
	types, err := metadataTypes(req.GetMetadataType())
	if err != nil {
		return nil, err
	}
	if len(types) > 0 {
		where = append(where, chatmessage.MetadataTypeIn(types...))
	}
	if req.GetCursor() != "" {
		at, id, err := page.DecodeCursor(req.GetCursor())
		if err != nil {
			return nil, err
		}
		// Strictly older in (createdAt, id) order: no overlap and no gap
		// between pages, even among messages with equal timestamps.
		where = append(where, chatmessage.Or(
			chatmessage.CreatedAtLT(at),
			chatmessage.And(chatmessage.CreatedAt(at), chatmessage.IDLT(id)),
		))
	}
	rows, err := s.DB.ChatMessage.Query().Where(where...).
		Order(ent.Desc(chatmessage.FieldCreatedAt), ent.Desc(chatmessage.FieldID)).
		Limit(pg.Limit + 1).All(ctx)
	if err != nil {
		return nil, err
	}
	pagination := &switchboardv1.ChatPagination{Limit: int32(pg.Limit)}
	if len(rows) > pg.Limit {
		rows = rows[:pg.Limit]
		pagination.HasMore = true
		last := rows[len(rows)-1]
		pagination.Cursor = proto.String(page.EncodeCursor(last.CreatedAt, last.ID))
	}
	slices.Reverse(rows)
	out := make([]*switchboardv1.ChatMessage, 0, len(rows))
	for _, r := range rows {
		out = append(out, events.Message(r))
	}
	return &switchboardv1.ListMessagesResponse{Messages: out, Pagination: pagination}, nil
}

// metadataTypes expands the filter values; empty values are ignored.
func metadataTypes(in []string) ([]string, error) {
	var out []string
	for _, t := range in {
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		if err := plain("metadataType", t); err != nil {
			return nil, err
		}
		if t == AgentActivityFilter {
			out = append(out, comms.AgentActivity...)
		} else {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// plain refuses text PostgreSQL cannot store or compare (NUL), so both
// databases answer alike.
func plain(field, v string) error {
	if strings.ContainsRune(v, 0) {
		return apperr.Invalid("%s must not contain NUL characters", field)
	}
	return nil
}

// SendMessage stores a message attributed to the caller and pushes it to the
// account's open streams. A key's send has the assistant role; the operator's
// own session (the dashboard) sends as the user (docs/decisions.md "Who asked,
// who wrote, first run").
func (s *Service) SendMessage(ctx context.Context, req *switchboardv1.SendMessageRequest) (*switchboardv1.SendMessageResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	content := strings.TrimSpace(req.GetContent())
	if content == "" {
		return nil, apperr.Invalid(ContentRequired)
	}
	if err := plain("content", content); err != nil {
		return nil, err
	}
	agent, err := p.AgentName()
	if err != nil {
		return nil, err
	}
	meta := req.GetMetadataJson()
	if err := plain("metadataJson", meta); err != nil {
		return nil, err
	}
	var metaType *string
	if meta != "" {
		var v any
		if err := json.Unmarshal([]byte(meta), &v); err != nil {
			// docs/decisions.md "Shared chat and events": the REST transport stores the
			// text as given; the RPC transport refuses it.
			if !p.REST {
				return nil, apperr.Invalid("metadataJson is not valid JSON: %v", err)
			}
		} else if obj, ok := v.(map[string]any); ok {
			if t, ok := obj["type"].(string); ok && t != "" {
				metaType = &t
			}
		}
	}
	// Microseconds: what PostgreSQL keeps, so the answer equals the listing.
	now := s.Now().UTC().Truncate(time.Microsecond)
	role := "assistant"
	if p.Via == auth.ViaSession {
		role = "user"
	}
	var m *ent.ChatMessage
	err = s.DB.InTx(ctx, func(tx *db.Tx) error {
		var err error
		m, err = tx.ChatMessage.Create().SetUserID(p.UserID).SetRole(role).SetContent(content).
			SetMetadata(meta).SetNillableMetadataType(metaType).SetAgentName(agent).SetCreatedAt(now).Save(ctx)
		if err != nil {
			return err
		}
		// Stored with the message, delivered once it has committed.
		tx.Emit(db.Event{UserID: p.UserID, Body: events.NewMessage(m)})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.SendMessageResponse{
		Id: m.ID, Role: m.Role, Content: m.Content, AgentName: m.AgentName, CreatedAt: timestamppb.New(m.CreatedAt),
	}, nil
}
