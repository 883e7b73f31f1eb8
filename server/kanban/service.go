// Package kanban is being built (issue 3); until then its RPCs answer unimplemented.
package kanban

import (
	"time"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/db"
)

var (
	_ switchboardv1connect.KanbanServiceHandler = (*Service)(nil)
	_ switchboardv1.KanbanServiceServer         = (*Service)(nil)
)

// Service implements KanbanService.
type Service struct {
	switchboardv1.UnimplementedKanbanServiceServer
	DB  *db.DB
	Now func() time.Time
}
