// Package contacts is being built (issue 3); until then its RPCs answer unimplemented.
package contacts

import (
	"time"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/db"
)

var (
	_ switchboardv1connect.ContactServiceHandler = (*Service)(nil)
	_ switchboardv1.ContactServiceServer         = (*Service)(nil)
)

// Service implements ContactService.
type Service struct {
	switchboardv1.UnimplementedContactServiceServer
	DB  *db.DB
	Now func() time.Time
}
