// Package page reads and writes the offset pagination every list shares
// (docs/decisions.md "Kanban and contacts": default 50, at most 100), and
// gathers the optional enum filters of list requests.
package page

import (
	"encoding/base64"
	"strconv"
	"strings"
	"time"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/apperr"
)

// Page sizes of a list without a stated limit.
const (
	DefaultLimit = 50
	MaxLimit     = 100
)

// Request is a validated limit and offset.
type Request struct {
	Limit, Offset int
}

// Parse applies the defaults: 0 means the default, more than the maximum is
// cut to it, negative values are refused.
func Parse(limit, offset int32) (Request, error) {
	l, err := Limit(limit, DefaultLimit, MaxLimit)
	if err != nil {
		return Request{}, err
	}
	if offset < 0 {
		return Request{}, apperr.Invalid("offset must not be negative: use 0 or more")
	}
	return Request{Limit: l, Offset: int(offset)}, nil
}

// Limit is a list's page size: 0 means def, more than maxLimit is cut to
// it, a negative limit is refused.
func Limit(limit int32, def, maxLimit int) (int, error) {
	switch l := int(limit); {
	case l < 0:
		return 0, apperr.Invalid("limit must not be negative: use 1 to %d, or 0 for the default of %d", maxLimit, def)
	case l == 0:
		return def, nil
	case l > maxLimit:
		return maxLimit, nil
	default:
		return l, nil
	}
}

// Of describes a page of returned rows out of total; an offset past the end
// gives an empty page with hasMore false.
func (r Request) Of(total, returned int) *switchboardv1.Pagination {
	return &switchboardv1.Pagination{
		Total:   int32(total),
		Limit:   int32(r.Limit),
		Offset:  int32(r.Offset),
		HasMore: r.Offset+returned < total,
	}
}

// EncodeCursor is the opaque cursor of a row in (created at, id) order, for
// lists paged from the newest back (the shared chat, the assistant's
// conversation): base64url of "<unix nanoseconds>.<id>".
func EncodeCursor(at time.Time, id string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(at.UnixNano(), 10) + "." + id))
}

// DecodeCursor reads a cursor EncodeCursor gave out; anything else is 400.
func DecodeCursor(c string) (time.Time, string, error) {
	bad := apperr.Invalid("cursor %q is not a cursor this list gave out", c)
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return time.Time{}, "", bad
	}
	nanos, id, ok := strings.Cut(string(raw), ".")
	if !ok || id == "" || len(id) > 40 || strings.ContainsFunc(id, func(r rune) bool { return r <= ' ' || r > '~' }) {
		return time.Time{}, "", bad
	}
	n, err := strconv.ParseInt(nanos, 10, 64)
	if err != nil || n < 0 {
		return time.Time{}, "", bad
	}
	return time.Unix(0, n).UTC(), id, nil
}
