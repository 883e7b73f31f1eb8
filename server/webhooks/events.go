package webhooks

import "time"

// Event names, as X-Switchboard-Event and the body's event carry them.
const (
	EventQueueUpdated      = "queue.updated"
	EventModeSwitched      = "settings.mode_switched"
	EventRelayStateChanged = "relay.state_changed" // server/network, when a sent relay's ack applies
)

// ServicePush is the settings service name of a push-webhook target.
const ServicePush = "webhook_push"

// Delivery rules (docs/decisions.md "Shared chat and events").
var (
	// Retries are the delays after each failed attempt; one more failure
	// after the last ends the delivery as retry_exhausted.
	Retries = []time.Duration{30 * time.Second, 2 * time.Minute, 8 * time.Minute}
)

const (
	// Timeout bounds one attempt, answer included.
	Timeout = 10 * time.Second
	// TimerName is the dispatcher's name in the timers' registry: it runs
	// its own loop and claims each due row for Lease.
	TimerName = "outbox"
	// Lease is how long a claimed row stays with its dispatcher before it is
	// due again (the dispatcher died); also the idle re-scan period.
	Lease = 5 * time.Minute

	breakerFailures  = 5
	breakerOpen      = 60 * time.Second
	breakerSuccesses = 2
)

// Event is one thing that happened, to be pushed to the account's targets.
type Event struct {
	// Name is one of the Event* constants.
	Name string
	// At is when it happened (the service's clock); occurredAt in the body.
	At time.Time
	// Data is the body's data: a proto message (rendered as the RPC JSON
	// form) or a value encoding/json renders, such as QueueUpdated.
	Data any
}

// QueueUpdated is the data of queue.updated.
type QueueUpdated struct {
	QueueItemID string `json:"queueItemId"`
	Status      string `json:"status"`
	// Action is the activity action the change wrote, e.g. queue_status_changed.
	Action string `json:"action"`
}

// ModeSwitched is the data of settings.mode_switched.
type ModeSwitched struct {
	Mode string `json:"mode"`
}
