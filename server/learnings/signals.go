package learnings

import (
	"context"
	"encoding/json"

	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/behaviorsignal"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/lists"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/learnings/rules"
	"github.com/switchboard-hq/switchboard/server/page"
)

// MaxContext is the most bytes a signal's context may hold as JSON.
const MaxContext = 4096

// RecordBehaviorSignal stores one signal.
func (s *Service) RecordBehaviorSignal(ctx context.Context, req *switchboardv1.RecordBehaviorSignalRequest) (*switchboardv1.RecordBehaviorSignalResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	raw := []byte("{}")
	if c := req.GetContext(); c != nil {
		if raw, err = json.Marshal(c.AsMap()); err != nil {
			return nil, apperr.Invalid("context is not a JSON object: %v", err)
		}
	}
	if len(raw) > MaxContext {
		return nil, apperr.Invalid("context is %d bytes as JSON; at most %d", len(raw), MaxContext)
	}
	now := s.now()
	loc, err := Location(ctx, s.DB, p.UserID)
	if err != nil {
		return nil, err
	}
	local := now.In(loc)
	hour, day := int32(local.Hour()), int32(local.Weekday())
	switch {
	case req.Hour != nil:
		hour = req.GetHour()
	case req.HourOfDay != nil:
		hour = req.GetHourOfDay()
	}
	if req.DayOfWeek != nil {
		day = req.GetDayOfWeek()
	}
	create := s.DB.BehaviorSignal.Create().SetUserID(p.UserID).SetAction(req.GetAction()).SetContext(string(raw)).
		SetHour(int(hour)).SetDayOfWeek(int(day)).SetCreatedAt(now).SetUpdatedAt(now)
	if req.Duration != nil {
		create.SetDuration(req.GetDuration())
	}
	// One row and no activity: a signal is the record of an action that
	// wrote its own.
	row, err := create.Save(ctx)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.RecordBehaviorSignalResponse{Signal: signalProto(row)}, nil
}

// ListBehaviorSignals pages the signals, or aggregates the last days days.
func (s *Service) ListBehaviorSignals(ctx context.Context, req *switchboardv1.ListBehaviorSignalsRequest) (*switchboardv1.ListBehaviorSignalsResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	pg, err := page.Parse(req.GetLimit(), req.GetOffset())
	if err != nil {
		return nil, err
	}
	if req.Days != nil {
		// The aggregate lists no signals; its page says how many it counted,
		// so both answers carry the contract's pagination.
		out, err := s.aggregate(ctx, p.UserID, int(req.GetDays()))
		if err == nil {
			out.Pagination = pg.Of(int(out.GetTotalSignals()), 0)
		}
		return out, err
	}
	q := s.DB.BehaviorSignal.Query().Where(behaviorsignal.UserID(p.UserID))
	total, err := q.Clone().Count(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := q.Order(ent.Desc(behaviorsignal.FieldCreatedAt), ent.Desc(behaviorsignal.FieldID)).
		Offset(pg.Offset).Limit(pg.Limit).All(ctx)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.ListBehaviorSignalsResponse{Signals: lists.Map(rows, signalProto), Pagination: pg.Of(total, len(rows))}, nil
}

func (s *Service) aggregate(ctx context.Context, userID string, days int) (*switchboardv1.ListBehaviorSignalsResponse, error) {
	signals, err := s.since(ctx, userID, days)
	if err != nil {
		return nil, err
	}
	a := rules.Aggregate(signals)
	total, peakHour, peakDay := int32(a.Total), int32(a.PeakHour), int32(a.PeakDay)
	out := &switchboardv1.ListBehaviorSignalsResponse{TotalSignals: &total, ByAction: map[string]int32{},
		ByHour: make([]int32, 24), ByDay: make([]int32, 7), PeakHour: &peakHour, PeakDay: &peakDay}
	for k, n := range a.ByAction {
		out.ByAction[k] = int32(n)
	}
	for h, n := range a.ByHour {
		out.ByHour[h] = int32(n)
	}
	for d, n := range a.ByDay {
		out.ByDay[d] = int32(n)
	}
	return out, nil
}

// since reads the account's signals of the last days days, oldest first.
func (s *Service) since(ctx context.Context, userID string, days int) ([]rules.Signal, error) {
	from := s.now().AddDate(0, 0, -days)
	rows, err := s.DB.BehaviorSignal.Query().
		Where(behaviorsignal.UserID(userID), behaviorsignal.CreatedAtGTE(from)).
		Order(ent.Asc(behaviorsignal.FieldCreatedAt), ent.Asc(behaviorsignal.FieldID)).
		Select(behaviorsignal.FieldAction, behaviorsignal.FieldHour, behaviorsignal.FieldDayOfWeek).All(ctx)
	if err != nil {
		return nil, err
	}
	return lists.Map(rows, func(r *ent.BehaviorSignal) rules.Signal {
		return rules.Signal{Action: r.Action, Hour: r.Hour, Day: r.DayOfWeek}
	}), nil
}

func signalProto(r *ent.BehaviorSignal) *switchboardv1.BehaviorSignal {
	out := &switchboardv1.BehaviorSignal{Id: r.ID, Action: r.Action, Hour: int32(r.Hour), DayOfWeek: int32(r.DayOfWeek),
		Duration: r.Duration, CreatedAt: timestamppb.New(r.CreatedAt)}
	var m map[string]any
	if json.Unmarshal([]byte(r.Context), &m) == nil {
		out.Context, _ = structpb.NewStruct(m)
	}
	if out.Context == nil {
		out.Context = &structpb.Struct{Fields: map[string]*structpb.Value{}}
	}
	return out
}
