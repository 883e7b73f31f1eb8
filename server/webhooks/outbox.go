package webhooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/schema"
	"github.com/switchboard-hq/switchboard/ent/setting"
	"github.com/switchboard-hq/switchboard/ent/webhookdelivery"
	"github.com/switchboard-hq/switchboard/internal/db"
)

// Enqueue writes one delivery of ev per push target of the account, inside
// tx, so the deliveries commit with the change they report. It reads the
// settings row; a caller that has it already calls EnqueueFor.
func Enqueue(ctx context.Context, tx *db.Tx, userID string, ev Event) error {
	row, err := tx.Setting.Query().Where(setting.UserID(userID)).Only(ctx)
	if err != nil {
		return fmt.Errorf("webhooks: read settings: %w", err)
	}
	return EnqueueFor(ctx, tx, row, ev)
}

// EnqueueFor is Enqueue with the account's settings row already loaded: an
// account without targets costs nothing more.
func EnqueueFor(ctx context.Context, tx *db.Tx, settings *ent.Setting, ev Event) error {
	targets := Targets(settings.ServiceKeys)
	if len(targets) == 0 {
		return nil
	}
	if ev.Name == "" || ev.At.IsZero() {
		return errors.New("webhooks: an event needs a name and a time")
	}
	body, err := Body(ev)
	if err != nil {
		return err
	}
	creates := make([]*ent.WebhookDeliveryCreate, len(targets))
	for i, t := range targets {
		creates[i] = tx.WebhookDelivery.Create().
			SetUserID(settings.UserID).SetEvent(ev.Name).SetURL(t.URL).
			SetPayload(string(body)).SetNextAttemptAt(ev.At.UTC()).
			SetCreatedAt(ev.At.UTC()).SetUpdatedAt(ev.At.UTC())
	}
	if err := tx.WebhookDelivery.CreateBulk(creates...).Exec(ctx); err != nil {
		return fmt.Errorf("webhooks: enqueue %s: %w", ev.Name, err)
	}
	// This process's dispatchers send them as soon as they are committed.
	tx.AfterCommit(wakeAll)
	return nil
}

// Targets picks the push targets out of the configured services.
func Targets(keys []schema.ServiceKey) []schema.ServiceKey {
	var out []schema.ServiceKey
	for _, k := range keys {
		if k.Service == ServicePush {
			out = append(out, k)
		}
	}
	return out
}

// envelope is the body of every delivery.
type envelope struct {
	Event      string          `json:"event"`
	OccurredAt string          `json:"occurredAt"`
	Data       json.RawMessage `json:"data"`
}

// Body renders ev as the bytes every attempt sends (and signs).
func Body(ev Event) ([]byte, error) {
	var data []byte
	var err error
	switch d := ev.Data.(type) {
	case nil:
		data = []byte("{}")
	case proto.Message:
		data, err = protojson.MarshalOptions{EmitDefaultValues: true}.Marshal(d)
	default:
		data, err = json.Marshal(d)
	}
	if err != nil {
		return nil, fmt.Errorf("webhooks: render %s data: %w", ev.Name, err)
	}
	// RFC 3339 in UTC with the fraction protojson writes for Timestamps.
	return json.Marshal(envelope{Event: ev.Name, OccurredAt: formatTime(ev.At), Data: data})
}

func formatTime(t time.Time) string {
	t = t.UTC()
	switch {
	case t.Nanosecond() == 0:
		return t.Format("2006-01-02T15:04:05Z")
	case t.Nanosecond()%1e6 == 0:
		return t.Format("2006-01-02T15:04:05.000Z")
	case t.Nanosecond()%1e3 == 0:
		return t.Format("2006-01-02T15:04:05.000000Z")
	}
	return t.Format("2006-01-02T15:04:05.000000000Z")
}

// running is every dispatcher of this process, woken when an enqueue commits.
var running = struct {
	sync.Mutex
	set map[*Dispatcher]struct{}
}{set: map[*Dispatcher]struct{}{}}

func wakeAll() {
	running.Lock()
	defer running.Unlock()
	for d := range running.set {
		d.Wake()
	}
}

// Forward is one body on its way to a URL the change itself names (not a
// push target of the settings): a widget response to its widgetResponseUrl,
// later the federation's calls. It rides the same outbox, retry schedule,
// breakers and address guard as a push, but is sent as is: Body unchanged,
// no signature, Headers added to Content-Type, User-Agent and
// X-Switchboard-Delivery.
type Forward struct {
	UserID string
	// Event names the row (the dispatcher's logs, the row's event column);
	// it is sent only if Headers say so.
	Event   string
	URL     string
	Headers map[string]string
	Body    []byte
	At      time.Time
	// InstanceID makes the row a federation delivery: the dispatcher adds
	// that instance's credential header when it sends (Config.Credential),
	// on the federation retry schedule.
	InstanceID string
	// ID is the row's id when the caller needs it (Held); made when empty.
	ID string
	// Held rows are attempted by their caller at once (Dispatcher.Attempt,
	// after the commit); the background takes one only once a lease has
	// passed, in case the caller never came to it.
	Held bool
}

// EnqueueForward writes f's row inside tx, so it commits with the change
// that caused it. The caller checks f.URL with the save-time address rule;
// the dial-time guard refuses a private address again at each attempt.
func EnqueueForward(ctx context.Context, tx *db.Tx, f Forward) error {
	if f.UserID == "" || f.Event == "" || f.URL == "" || f.At.IsZero() {
		return errors.New("webhooks: a forward needs an account, an event, a URL and a time")
	}
	at := f.At.UTC()
	kind := webhookdelivery.KindForward
	var instance *string
	if f.InstanceID != "" {
		kind, instance = webhookdelivery.KindFederation, &f.InstanceID
	}
	next := at
	if f.Held {
		next = at.Add(Lease)
	}
	create := tx.WebhookDelivery.Create().SetUserID(f.UserID).SetEvent(f.Event).SetKind(kind).SetNillableInstanceID(instance).
		SetURL(f.URL).SetHeaders(f.Headers).SetPayload(string(f.Body)).SetNextAttemptAt(next).
		SetCreatedAt(at).SetUpdatedAt(at)
	if f.ID != "" {
		create.SetID(f.ID)
	}
	if err := create.Exec(ctx); err != nil {
		return fmt.Errorf("webhooks: enqueue forward %s: %w", f.Event, err)
	}
	if !f.Held {
		tx.AfterCommit(wakeAll)
	}
	return nil
}

// Depth is how many rows wait to be delivered (pending, due or not), for
// the metrics' switchboard_outbox_depth.
func (d *Dispatcher) Depth(ctx context.Context) (int, error) {
	return d.db.WebhookDelivery.Query().Where(webhookdelivery.StatusEQ(webhookdelivery.StatusPending)).Count(ctx)
}
