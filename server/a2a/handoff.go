package a2a

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/capabilityinstall"
	"github.com/switchboard-hq/switchboard/ent/card"
	"github.com/switchboard-hq/switchboard/ent/queueitem"
	"github.com/switchboard-hq/switchboard/ent/setting"
	"github.com/switchboard-hq/switchboard/ent/storeinstall"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/calendar"
	"github.com/switchboard-hq/switchboard/server/learnings"
	"github.com/switchboard-hq/switchboard/server/settings"
)

var (
	_ switchboardv1connect.HandoffServiceHandler = (*Handoff)(nil)
	_ switchboardv1.HandoffServiceServer         = (*Handoff)(nil)
)

// Handoff implements HandoffService: the playbook and the main handoff
// (a2a.proto), read-only views over the account's settings, installs, queue
// and board.
type Handoff struct {
	DB  *db.DB
	Now func() time.Time
}

// topItems bounds the queue's listed open items.
const topItems = 10

// dueWithin is how soon a card's due date makes it a priority.
const dueWithin = 48 * time.Hour

// GetPlaybook answers preferences, installed packs and store agents, and the
// handoff brief.
func (h *Handoff) GetPlaybook(ctx context.Context, _ *switchboardv1.GetPlaybookRequest) (*switchboardv1.GetPlaybookResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	active, err := learnings.Active(ctx, h.DB.Client, p.UserID)
	if err != nil {
		return nil, err
	}
	prefs := &switchboardv1.PlaybookPreferences{Mode: settings.Mode, Learnings: append([]string{}, active...)}
	row, err := h.DB.Setting.Query().Where(setting.UserID(p.UserID)).Only(ctx)
	switch {
	case err == nil:
		prefs.QueueAutoApprove, prefs.GoalsEnabled = row.QueueAutoApprove, row.GoalsEnabled
		if row.AssistantName != "" {
			prefs.AssistantName = &row.AssistantName
		}
	case !ent.IsNotFound(err):
		return nil, err
	}
	packs, err := h.DB.CapabilityInstall.Query().Where(capabilityinstall.UserID(p.UserID)).
		WithCapability().Order(ent.Asc(capabilityinstall.FieldCreatedAt), ent.Asc(capabilityinstall.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	agents, err := h.DB.StoreInstall.Query().Where(storeinstall.UserID(p.UserID)).
		WithStoreAgent().Order(ent.Asc(storeinstall.FieldCreatedAt), ent.Asc(storeinstall.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	pb := &switchboardv1.Playbook{Preferences: prefs}
	for _, in := range packs {
		if c := in.Edges.Capability; c != nil {
			pb.CapabilityPacks = append(pb.CapabilityPacks, &switchboardv1.PlaybookPack{Id: c.ID, Name: c.Name, Category: c.Category, Active: in.Active})
		}
	}
	for _, in := range agents {
		if a := in.Edges.StoreAgent; a != nil {
			pb.StoreAgents = append(pb.StoreAgents, &switchboardv1.PlaybookAgent{Id: a.ID, Name: a.Name, Slug: a.Slug, Category: a.Category})
		}
	}
	pb.HandoffBrief = brief(p, prefs, pb)
	return &switchboardv1.GetPlaybookResponse{Success: true, Playbook: pb}, nil
}

// brief is the handoff brief: how work reaches this operator, in a few
// sentences (docs/decisions.md "A2A (issue 13)").
func brief(p *auth.Principal, prefs *switchboardv1.PlaybookPreferences, pb *switchboardv1.Playbook) string {
	var b strings.Builder
	who := p.Name
	if prefs.AssistantName != nil {
		who += " (assistant: " + *prefs.AssistantName + ")"
	}
	fmt.Fprintf(&b, "You are handing work to %s, in %s mode. ", who, prefs.Mode)
	if prefs.QueueAutoApprove {
		b.WriteString("Tasks you send join the queue ready to be worked: the operator approves automatically. ")
	} else {
		b.WriteString("Tasks you send wait in the queue for the operator's approval before work starts. ")
	}
	b.WriteString("Send one task per message, its first line a short title; follow it with message/stream or tasks/get. ")
	names := func(n int, name func(i int) string) string {
		out := make([]string, n)
		for i := range n {
			out[i] = name(i)
		}
		return strings.Join(out, ", ")
	}
	if n := len(pb.CapabilityPacks); n > 0 {
		fmt.Fprintf(&b, "Installed capability packs: %s. ", names(n, func(i int) string { return pb.CapabilityPacks[i].Name }))
	}
	if n := len(pb.StoreAgents); n > 0 {
		fmt.Fprintf(&b, "Installed store agents: %s. ", names(n, func(i int) string { return pb.StoreAgents[i].Name }))
	}
	return strings.TrimSpace(b.String())
}

// GetMainHandoff answers mode, queue counts and top items, calendar and
// priorities.
func (h *Handoff) GetMainHandoff(ctx context.Context, _ *switchboardv1.GetMainHandoffRequest) (*switchboardv1.GetMainHandoffResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	var counts []struct {
		Status string `json:"status"`
		Count  int    `json:"count"`
	}
	err = h.DB.QueueItem.Query().Where(queueitem.UserID(p.UserID)).GroupBy(queueitem.FieldStatus).
		Aggregate(ent.Count()).Scan(ctx, &counts)
	if err != nil {
		return nil, err
	}
	q := &switchboardv1.HandoffQueue{Counts: map[string]int32{}}
	for _, s := range vocab.Values("queue_status") {
		q.Counts[s] = 0
	}
	for _, c := range counts {
		q.Counts[c.Status] = int32(c.Count) //nolint:gosec // a count of one account's items
		q.Total += int32(c.Count)           //nolint:gosec // as above
	}
	open, err := h.DB.QueueItem.Query().Where(queueitem.UserID(p.UserID), queueitem.StatusNEQ(queueitem.StatusDoneToday)).
		Order(ent.Asc(queueitem.FieldCreatedAt), ent.Asc(queueitem.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	ranked := byUrgency(open)
	res := &switchboardv1.GetMainHandoffResponse{Success: true, Mode: settings.Mode, Queue: q,
		Calendar: []*switchboardv1.HandoffEvent{}, Priorities: &switchboardv1.HandoffPriorities{}}
	for i, it := range ranked {
		if i < topItems {
			q.TopItems = append(q.TopItems, itemBrief(it))
		}
		if it.Priority == queueitem.PriorityUrgent {
			res.Priorities.UrgentItems = append(res.Priorities.UrgentItems, itemBrief(it))
		}
	}
	now := h.Now().UTC()
	cards, err := h.DB.Card.Query().Where(card.UserID(p.UserID), card.StatusNEQ(card.StatusCompleted),
		card.DueDateNotNil(), card.DueDateLTE(now.Add(dueWithin))).
		Order(ent.Asc(card.FieldDueDate), ent.Asc(card.FieldID)).All(ctx)
	if err != nil {
		return nil, err
	}
	// RULINGS "The proactive layer", Details: events under way or starting
	// within 24 hours.
	events, err := calendar.Upcoming(ctx, h.DB.Client, p.UserID, now, calendarWithin)
	if err != nil {
		return nil, err
	}
	for _, ev := range events {
		res.Calendar = append(res.Calendar, &switchboardv1.HandoffEvent{Id: ev.ID, Title: ev.Title, Start: timestamppb.New(ev.StartsAt)})
	}
	for _, c := range cards {
		res.Priorities.CardsDue = append(res.Priorities.CardsDue, &switchboardv1.HandoffCard{
			Id: c.ID, Title: c.Title, Status: string(c.Status), Priority: string(c.Priority), DueDate: timestamppb.New(*c.DueDate)})
	}
	return res, nil
}

// calendarWithin is how far ahead main-handoff's calendar looks.
const calendarWithin = 24 * time.Hour

// byUrgency orders items by priority, most urgent first, then oldest first
// (the query's order, kept by a stable sort).
func byUrgency(items []*ent.QueueItem) []*ent.QueueItem {
	rank := vocab.Values("priority") // low … urgent
	out := slices.Clone(items)
	slices.SortStableFunc(out, func(a, b *ent.QueueItem) int {
		return slices.Index(rank, string(b.Priority)) - slices.Index(rank, string(a.Priority))
	})
	return out
}

func itemBrief(it *ent.QueueItem) *switchboardv1.QueueItemBrief {
	return &switchboardv1.QueueItemBrief{Id: it.ID, Title: it.Title, Status: string(it.Status), Priority: string(it.Priority), Source: it.Source}
}
