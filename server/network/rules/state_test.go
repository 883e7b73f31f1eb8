package rules

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/queue"
)

// RULINGS "The operator network", relay state: the complete table, every
// ordered pair (docs/decisions.md names the moves beyond the ruling's chain).
func TestNextEveryPair(t *testing.T) {
	t.Parallel()
	legal := map[string]bool{
		"delivered>accepted": true, "delivered>blocked": true, "delivered>declined": true,
		"accepted>blocked": true, "accepted>completed": true, "accepted>declined": true,
		"blocked>accepted": true, "blocked>completed": true, "blocked>declined": true,
	}
	pairs := 0
	for _, from := range States.Values {
		for _, to := range States.Values {
			pairs++
			err := Next(from, to)
			if want := legal[from+">"+to]; (err == nil) != want {
				t.Errorf("%s → %s: legal = %v, want %v (%v)", from, to, err == nil, want, err)
			}
			if err != nil && apperr.From(err).Kind != apperr.KindIllegalMove {
				t.Errorf("%s → %s: %v is not an illegal move", from, to, err)
			}
		}
	}
	if pairs != 25 {
		t.Fatalf("checked %d pairs, want 25", pairs)
	}
	if err := Next(StateCompleted, StateDeclined); err == nil || !strings.Contains(err.Error(), "stays finished") {
		t.Errorf("completed → declined = %v, want the finished refusal", err)
	}
	if err := Next(StateBlocked, StateDelivered); err == nil || !strings.Contains(err.Error(), "accepted, completed, declined") {
		t.Errorf("blocked → delivered = %v, want the options named", err)
	}
	for _, pair := range [][2]string{{"delivered", "done"}, {"pending", "accepted"}} {
		if err := Next(pair[0], pair[1]); apperr.From(err).Kind != apperr.KindInvalid || !strings.Contains(err.Error(), "state") {
			t.Errorf("Next(%q, %q) = %v, want a 400 naming state", pair[0], pair[1], err)
		}
	}
}

// RULINGS: delivered (pending), accepted (approved), blocked, completed
// (done); every queue status maps, read from the vocabulary so a new status
// cannot go unmapped.
func TestFromQueueEveryStatus(t *testing.T) {
	t.Parallel()
	want := map[string]string{
		"pending_confirmation": StateDelivered,
		"ready":                StateAccepted,
		"in_progress":          StateAccepted,
		"later":                StateAccepted,
		"blocked":              StateBlocked,
		"done_today":           StateCompleted,
	}
	for _, status := range vocab.Values("queue_status") {
		got, err := FromQueue(status)
		if err != nil || got != want[status] {
			t.Errorf("FromQueue(%s) = %q, %v, want %q", status, got, err, want[status])
		}
	}
	if _, err := FromQueue("removed"); apperr.From(err).Kind != apperr.KindInvalid {
		t.Errorf("FromQueue(removed) = %v, want invalid", err)
	}
}

// Every move the queue's table allows means a legal relay change or none,
// so the recipient never has a relay state it cannot send; a rejected or
// removed item declines its relay unless it was completed.
func TestChangeFollowsQueueMoves(t *testing.T) {
	t.Parallel()
	moves := 0
	for _, from := range queue.Statuses {
		for _, to := range queue.Statuses {
			if queue.CheckMove(from, to) != nil {
				continue
			}
			moves++
			state, changed, err := Change(from, to)
			if err != nil {
				t.Errorf("queue %s → %s: relay change refused: %v", from, to, err)
				continue
			}
			fromState, _ := FromQueue(from)
			if changed != (state != fromState) {
				t.Errorf("queue %s → %s: changed = %v with %s → %s", from, to, changed, fromState, state)
			}
		}
	}
	if moves != 17 {
		t.Fatalf("walked %d queue moves, want the table's 17", moves)
	}
	cases := []struct {
		from, to string
		state    string
		changed  bool
	}{
		{queue.PendingConfirmation, queue.Ready, StateAccepted, true},
		{queue.InProgress, queue.Ready, StateAccepted, false},
		{queue.InProgress, queue.Blocked, StateBlocked, true},
		{queue.Blocked, queue.Ready, StateAccepted, true},
		{queue.Ready, queue.DoneToday, StateCompleted, true},
	}
	for _, c := range cases {
		state, changed, err := Change(c.from, c.to)
		if err != nil || state != c.state || changed != c.changed {
			t.Errorf("Change(%s, %s) = %s, %v, %v; want %s, %v", c.from, c.to, state, changed, err, c.state, c.changed)
		}
	}
	for _, s := range []string{StateDelivered, StateAccepted, StateBlocked} {
		if err := Next(s, StateDeclined); err != nil {
			t.Errorf("an item rejected or removed while %s: %v", s, err)
		}
	}
	if _, _, err := Change("gone", queue.Ready); err == nil {
		t.Error("Change from an unknown status succeeded")
	}
}

// RULINGS: the sender applies a relay-ack only if it moves forward; a
// replayed older ack changes nothing. Acks come through the outbox's
// retries, so late, twice or out of order.
func TestApplyAck(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	cases := []struct {
		name  string
		cur   string
		curAt time.Time
		ack   Ack
		want  bool
	}{
		{"delivered → accepted", StateDelivered, time.Time{}, Ack{StateAccepted, at(1)}, true},
		{"delivered → completed overtaking a delayed accepted", StateDelivered, time.Time{}, Ack{StateCompleted, at(5)}, true},
		{"accepted → blocked, newer", StateAccepted, at(1), Ack{StateBlocked, at(2)}, true},
		{"blocked → accepted, newer", StateBlocked, at(2), Ack{StateAccepted, at(3)}, true},
		{"blocked → completed", StateBlocked, at(2), Ack{StateCompleted, at(4)}, true},
		{"accepted → declined", StateAccepted, at(1), Ack{StateDeclined, at(2)}, true},
		{"replayed older blocked after the return to accepted", StateAccepted, at(3), Ack{StateBlocked, at(2)}, false},
		{"replayed older accepted while blocked", StateBlocked, at(2), Ack{StateAccepted, at(1)}, false},
		{"a flip at the same instant", StateBlocked, at(2), Ack{StateAccepted, at(2)}, false},
		{"the same ack twice", StateAccepted, at(1), Ack{StateAccepted, at(1)}, false},
		{"the same state, newer", StateBlocked, at(2), Ack{StateBlocked, at(3)}, false},
		{"a late accepted after completed", StateCompleted, at(5), Ack{StateAccepted, at(1)}, false},
		{"completed never becomes declined", StateCompleted, at(5), Ack{StateDeclined, at(6)}, false},
		{"declined never becomes completed", StateDeclined, at(5), Ack{StateCompleted, at(6)}, false},
	}
	for _, tc := range cases {
		got, err := ApplyAck(tc.cur, tc.curAt, tc.ack)
		if err != nil || got != tc.want {
			t.Errorf("%s: ApplyAck(%s, %v) = %v, %v; want %v", tc.name, tc.cur, tc.ack, got, err, tc.want)
		}
	}
	for _, s := range []string{StateDelivered, "done", ""} {
		_, err := ApplyAck(StateAccepted, t0, Ack{s, t0})
		if apperr.From(err).Kind != apperr.KindInvalid || !strings.Contains(err.Error(), "accepted, blocked, completed, declined") {
			t.Errorf("an ack of %q: %v, want a 400 naming the ack states", s, err)
		}
	}
}

// The vocabularies issue 15 declares, as document 2 and RULINGS list them
// (profile_updated: Reconciliation 9).
func TestRelayVocabularies(t *testing.T) {
	t.Parallel()
	cases := map[*vocab.Set][]string{
		Types:      {"request", "response", "notification"},
		Intents:    {"get_info", "assign_task", "request_approval", "share_update", "schedule", "introduce", "custom"},
		Priorities: {"low", "normal", "high", "urgent"},
		States:     {"delivered", "accepted", "blocked", "completed", "declined"},
		NotificationTypes: {"task_assigned", "mention", "relay_received", "approval_needed", "deadline_approaching",
			"agent_update", "team_invite", "project_update", "capability_alert", "system_notice", "payment_received",
			"goal_progress", "project_invite", "profile_updated", "team_added", "learning_generated"},
		FilterReasons:  {"topic-filter", "quiet-hours", "ambient-disabled"},
		Strategies:     {"direct", "auction", "broadcast"},
		CandidateKinds: {"connection", "store_agent"},
		Parties:        {"contact", "connection"},
	}
	for s, want := range cases {
		if !slices.Equal(s.Values, want) {
			t.Errorf("vocabulary %s = %v, want %v", s.Name, s.Values, want)
		}
	}
	for _, s := range States.Values {
		if _, ok := next[s]; !ok {
			t.Errorf("state %s has no row in the transition table", s)
		}
	}
}

// Every single value the rules name belongs to its vocabulary; the trust
// levels are checked once the connections' trust_level is declared.
func TestConstantsAreVocabulary(t *testing.T) {
	t.Parallel()
	cases := map[*vocab.Set][]string{
		Types:                     {TypeRequest, TypeResponse, TypeNotification},
		Intents:                   {IntentGetInfo, IntentAssignTask, IntentRequestApproval, IntentShareUpdate, IntentSchedule, IntentIntroduce, IntentCustom},
		Priorities:                {PriorityNormal},
		States:                    {StateDelivered, StateAccepted, StateBlocked, StateCompleted, StateDeclined},
		FilterReasons:             {ReasonTopicFilter, ReasonQuietHours, ReasonAmbientDisabled},
		CandidateKinds:            {CandidateConnection, CandidateStoreAgent},
		Strategies:                {StrategyDirect, StrategyAuction, StrategyBroadcast},
		Parties:                   {PartyContact, PartyConnection},
		NotificationTypes:         {NotificationProfileUpdated},
		vocab.Get("queue_status"): {queuePending, queueReady, queueInProgress, queueDoneToday, queueBlocked, queueLater},
	}
	if trust, ok := vocab.Lookup("trust_level"); ok {
		cases[trust] = []string{TrustUntrusted, TrustKnown, TrustTrusted}
	}
	for s, values := range cases {
		for _, v := range values {
			if !s.Has(v) {
				t.Errorf("constant %q is not a value of vocabulary %s", v, s.Name)
			}
		}
	}
}

// RULINGS: request intents become queue items; notification, share_update
// and introduce are ambient; a response joins its thread.
func TestClassify(t *testing.T) {
	t.Parallel()
	cases := []struct {
		typ, intent string
		want        Handling
	}{
		{TypeRequest, IntentAssignTask, AsItem},
		{TypeRequest, IntentRequestApproval, AsItem},
		{TypeRequest, IntentSchedule, AsItem},
		{TypeRequest, IntentGetInfo, AsItem},
		{TypeRequest, IntentCustom, AsItem},
		{TypeRequest, IntentShareUpdate, AsAmbient},
		{TypeRequest, IntentIntroduce, AsAmbient},
		{TypeNotification, IntentAssignTask, AsAmbient},
		{TypeNotification, "", AsAmbient},
		{TypeResponse, IntentShareUpdate, AsReply},
		{"", IntentIntroduce, AsAmbient},
		{"", "", AsItem},
	}
	for _, c := range cases {
		if got, err := Classify(c.typ, c.intent); err != nil || got != c.want {
			t.Errorf("Classify(%q, %q) = %v, %v; want %v", c.typ, c.intent, got, err, c.want)
		}
	}
	for _, c := range [][3]string{{"ping", "", "type"}, {TypeRequest, "hire", "intent"}} {
		_, err := Classify(c[0], c[1])
		if apperr.From(err).Kind != apperr.KindInvalid || !strings.HasPrefix(err.Error(), c[2]+" ") {
			t.Errorf("Classify(%q, %q) = %v, want a 400 naming %s", c[0], c[1], err, c[2])
		}
	}
}

// RULINGS: priority normal maps to medium; the others are the queue's own.
func TestQueuePriority(t *testing.T) {
	t.Parallel()
	want := map[string]string{"low": "low", "normal": "medium", "high": "high", "urgent": "urgent", "": "medium"}
	for in, out := range want {
		got, err := QueuePriority(in)
		if err != nil || got != out || !vocab.Get("priority").Has(got) {
			t.Errorf("QueuePriority(%q) = %q, %v; want %q", in, got, err, out)
		}
	}
	for _, p := range vocab.Values("relay_priority") {
		if q, err := QueuePriority(p); err != nil || !vocab.Get("priority").Has(q) {
			t.Errorf("relay priority %s does not map: %v", p, err)
		}
	}
	if _, err := QueuePriority("medium"); err == nil || !strings.Contains(err.Error(), "priority") {
		t.Errorf("QueuePriority(medium) = %v, want refused: the sender's word is normal", err)
	}
}

// Document 2: the twelve notification types and project_invite; another
// type is 400.
func TestCheckNotificationType(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"task_assigned", "goal_progress", "project_invite", "profile_updated"} {
		if err := CheckNotificationType(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "invite", "Task_Assigned"} {
		if err := CheckNotificationType(bad); apperr.From(err).Kind != apperr.KindInvalid {
			t.Errorf("%q: %v, want 400", bad, err)
		}
	}
}
