package kanban

import (
	"testing"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/apperr"
)

var (
	open    = Item{}
	done    = Item{Completed: true}
	review  = Item{SourceType: SourceQueueReview}
	checked = Item{Completed: true, SourceType: SourceQueueReview}
)

func TestIsComplete(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		items []Item
		want  bool
	}{
		{"empty", nil, false},
		{"one open", []Item{open}, false},
		{"one done", []Item{done}, true},
		{"mixed", []Item{done, open}, false},
		{"all done", []Item{done, done, checked}, true},
		{"open review", []Item{done, review}, false},
	}
	for _, tc := range cases {
		if got := IsComplete(tc.items); got != tc.want {
			t.Errorf("%s: IsComplete = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestAutoCompletes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name          string
		status        string
		before, after []Item
		want          bool
	}{
		{"closing the last open item", "active", []Item{done, open}, []Item{done, done}, true},
		{"closing one of two", "active", []Item{open, open}, []Item{done, open}, false},
		{"already completed card", "completed", []Item{open}, []Item{done}, false},
		{"nothing was open (all done already)", "active", []Item{done}, []Item{done}, false},
		{"nothing was open (no checklist)", "active", nil, []Item{done}, false},
		{"checklist emptied", "active", []Item{open}, nil, false},
		{"reopening", "active", []Item{done}, []Item{open}, false},
		{"closing the review item", "paused", []Item{done, review}, []Item{done, checked}, true},
		{"any column", "leads", []Item{open}, []Item{done}, true},
	}
	for _, tc := range cases {
		if got := AutoCompletes(tc.status, tc.before, tc.after); got != tc.want {
			t.Errorf("%s: AutoCompletes = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestPendingReviewRule(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		items []Item
		want  bool
	}{
		{"none", nil, false},
		{"open non-review", []Item{open, {SourceType: "queue"}}, false},
		{"open review", []Item{done, review}, true},
		{"checked review", []Item{checked}, false},
		{"one of two reviews open", []Item{checked, review}, true},
	}
	for _, tc := range cases {
		if got := PendingReview(tc.items); got != tc.want {
			t.Errorf("%s: PendingReview = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestCheckEnum(t *testing.T) {
	t.Parallel()
	for _, v := range Statuses {
		if err := apperr.OneOf("status", v, Statuses); err != nil {
			t.Errorf("%s refused: %v", v, err)
		}
	}
	for _, v := range []string{"", "Active", "done", " active"} {
		err := apperr.OneOf("status", v, Statuses)
		if e := apperr.From(err); err == nil || e.Kind != apperr.KindInvalid {
			t.Errorf("%q accepted: %v", v, err)
		}
	}
	if statusRank("leads") != 0 || statusRank("completed") != len(Statuses)-1 {
		t.Errorf("column order broken")
	}
}

func TestChangedFields(t *testing.T) {
	t.Parallel()
	s := func(v string) *string { return &v }
	before := &switchboardv1.KanbanCard{Title: "T", Status: "active", Order: 1, Labels: []string{"a"}, Description: s("d")}
	cases := []struct {
		name  string
		after *switchboardv1.KanbanCard
		moved bool
		want  []string
	}{
		{"same", &switchboardv1.KanbanCard{Title: "T", Status: "active", Order: 1, Labels: []string{"a"}, Description: s("d")}, false, nil},
		{"status only is a move, not an update", &switchboardv1.KanbanCard{Title: "T", Status: "paused", Order: 4, Labels: []string{"a"}, Description: s("d")}, true, nil},
		{"order alone", &switchboardv1.KanbanCard{Title: "T", Status: "active", Order: 2, Labels: []string{"a"}, Description: s("d")}, false, []string{"order"}},
		{"cleared and relabelled", &switchboardv1.KanbanCard{Title: "T", Status: "active", Order: 1, Labels: []string{"b"}}, false, []string{"description", "labels"}},
		{"emptied description differs from absent", &switchboardv1.KanbanCard{Title: "T", Status: "active", Order: 1, Labels: []string{"a"}, Description: s("")}, false, []string{"description"}},
	}
	for _, tc := range cases {
		got := changedFields(before, tc.after, tc.moved)
		if len(got) != len(tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
			}
		}
	}
}
