// Package updates publishes this project's own changelog, shipped in the binary.
package updates

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/page"
)

// Source names the publisher of the feed (docs/decisions.md "Changelog feed").
const Source = "switchboard"

//go:embed changelog.json
var changelogJSON []byte

type entry struct {
	ID               string   `json:"id"`
	Date             string   `json:"date"`
	Time             *string  `json:"time"`
	Title            string   `json:"title"`
	Subtitle         *string  `json:"subtitle"`
	Tags             []string `json:"tags"`
	Content          string   `json:"content"`
	AdoptionModuleID *string  `json:"adoptionModuleId"`
}

// Service implements UpdateService.
type Service struct {
	Now     func() time.Time
	entries []*switchboardv1.Update
}

// New loads the shipped changelog, newest first.
func New(now func() time.Time) (*Service, error) {
	entries, err := parse(changelogJSON)
	if err != nil {
		return nil, err
	}
	return &Service{Now: now, entries: entries}, nil
}

func parse(data []byte) ([]*switchboardv1.Update, error) {
	var raw []entry
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("updates: changelog: %w", err)
	}
	out := make([]*switchboardv1.Update, 0, len(raw))
	for _, e := range raw {
		if _, err := time.Parse(time.DateOnly, e.Date); err != nil || e.ID == "" || e.Title == "" {
			return nil, fmt.Errorf("updates: changelog entry %q needs an id, a title and a YYYY-MM-DD date", e.ID)
		}
		tags := e.Tags
		if tags == nil {
			tags = []string{}
		}
		out = append(out, &switchboardv1.Update{
			Id: e.ID, Date: e.Date, Time: e.Time, Title: e.Title, Subtitle: e.Subtitle,
			Tags: tags, Content: e.Content, AdoptionModuleId: e.AdoptionModuleID,
		})
	}
	// Newest first; entries of one day keep their order in the file.
	slices.SortStableFunc(out, func(a, b *switchboardv1.Update) int { return strings.Compare(b.Date, a.Date) })
	return out, nil
}

// ListUpdates answers the feed, filtered by since and tag, cut at limit.
func (s *Service) ListUpdates(ctx context.Context, req *switchboardv1.ListUpdatesRequest) (*switchboardv1.ListUpdatesResponse, error) {
	pg, err := page.Parse(req.GetLimit(), 0)
	if err != nil {
		return nil, err
	}
	limit := pg.Limit
	since := req.GetSince()
	if since != "" {
		if _, err := time.Parse(time.DateOnly, since); err != nil {
			return nil, apperr.Invalid("since must be a date in the form YYYY-MM-DD")
		}
	}
	tag := req.GetTag()
	out := make([]*switchboardv1.Update, 0, min(limit, len(s.entries)))
	for _, e := range s.entries {
		if len(out) == limit {
			break
		}
		// Dates are YYYY-MM-DD, so string order is date order.
		if (since == "" || e.Date >= since) && (tag == "" || slices.Contains(e.Tags, tag)) {
			out = append(out, e)
		}
	}
	return &switchboardv1.ListUpdatesResponse{
		Updates:     out,
		Total:       int32(len(s.entries)),
		Returned:    int32(len(out)),
		Source:      Source,
		GeneratedAt: timestamppb.New(s.Now()),
	}, nil
}
