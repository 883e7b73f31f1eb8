// Package queue is being built (issue 3); until then its RPCs answer unimplemented.
package queue

import (
	"time"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/db"
)

var (
	_ switchboardv1connect.QueueServiceHandler = (*Service)(nil)
	_ switchboardv1.QueueServiceServer         = (*Service)(nil)
)

// Service implements QueueService.
type Service struct {
	switchboardv1.UnimplementedQueueServiceServer
	DB  *db.DB
	Now func() time.Time
}
