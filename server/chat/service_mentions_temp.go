// replaced at merge by the chat service: this file exists only so that the
// mentions branch compiles and runs on its own; the chat service brings the
// real Service, ListMessages and SendMessage.

// Package chat owns the shared chat (document 1, "Shared chat") and the
// mention search of its input.
package chat

import (
	"context"
	"time"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/server/apperr"
)

var (
	_ switchboardv1connect.SharedChatServiceHandler = (*Service)(nil)
	_ switchboardv1.SharedChatServiceServer         = (*Service)(nil)
)

// Service implements SharedChatService.
type Service struct {
	DB  *db.DB
	Now func() time.Time
}

func unimplemented(name string) error {
	return &apperr.Error{Kind: apperr.KindUnimplemented, Message: name + " is not implemented yet"}
}

// ListMessages is not implemented in this branch.
func (s *Service) ListMessages(context.Context, *switchboardv1.ListMessagesRequest) (*switchboardv1.ListMessagesResponse, error) {
	return nil, unimplemented("ListMessages")
}

// SendMessage is not implemented in this branch.
func (s *Service) SendMessage(context.Context, *switchboardv1.SendMessageRequest) (*switchboardv1.SendMessageResponse, error) {
	return nil, unimplemented("SendMessage")
}
