// Package webhooks owns outbound push webhooks (docs/decisions.md "Shared chat
// and events"): a durable outbox written in the same transaction as the change it
// reports, and a Dispatcher that delivers it, signed, with retries and a
// circuit breaker per target URL.
//
// # Targets
//
// Targets are the account's settings entries with service "webhook_push"
// (settings.service_keys): a URL and a secret, the HMAC-SHA256 key. Each
// attempt reads the secret from the settings again, so a new secret signs the
// retries of older events, and a target that was removed is not called any
// more (its pending deliveries end as "cancelled").
//
// # Emitting an event
//
// Call Enqueue (or EnqueueFor, with the settings row the caller has already
// loaded) inside the transaction of the change. It writes one row per target
// and nothing when there is none; the rows commit or roll back with the
// change, and the dispatchers of this process are woken once it commits.
//
//	err := webhooks.EnqueueFor(ctx, tx, settingsRow, webhooks.Event{
//		Name: webhooks.EventQueueUpdated,
//		At:   now,
//		Data: webhooks.QueueUpdated{QueueItemID: item.ID, Status: string(item.Status), Action: "queue_status_changed"},
//	})
//
// Events and their data:
//
//   - queue.updated (EventQueueUpdated): any change to a queue item, emitted by
//     server/queue. Data is QueueUpdated: {queueItemId, status, action}, where
//     action is the activity action the change wrote (queue_added,
//     queue_updated, queue_status_changed, queue_dispatched, task_dispatched,
//     queue_deleted) and status the item's status after it (before it, for a
//     deletion).
//   - settings.mode_switched (EventModeSwitched): a settings PATCH that supplies
//     mode, although the mode is always cockpit. Data is ModeSwitched: {mode}.
//   - relay.state_changed (EventRelayStateChanged): a relay the account sent
//     changed state on the recipient (an applied relay-ack), emitted by
//     server/network. Data: {relayId, connectionId, state, result, reason,
//     subject}.
//
// # Forwarding a body to a URL the change names
//
// EnqueueForward writes a "forward" row in the change's transaction: a body
// for a URL that is not a settings target but part of the change (a widget
// response goes to the item's widgetResponseUrl, server/widgets). It is sent
// as is, unsigned, with the row's own headers (X-Service-Event:
// widget_response) besides Content-Type, User-Agent and
// X-Switchboard-Delivery, on the same retry schedule, breakers and address
// guard as a push; no settings change cancels it.
//
// # Federation rows
//
// A Forward with InstanceID is a federation delivery (the hub's approval
// webhook to a spoke): the instance's credential header is added at each
// attempt (Config.Credential), its retries follow Config.FederationRetries
// (--federation-retry-schedule), and every attempt goes through the audit
// transport (Config.Audit), which writes one outbound FederationAuditLog row
// with the retry count and state (retry_pending, retry_exhausted,
// retry_success). Retry is the hub admin's process_retries: it attempts the
// federation rows waiting for a retry now and answers what became of them.
//
// # Delivery
//
// POST url with the body {event, occurredAt, data} and the headers
// Content-Type: application/json, X-Switchboard-Event: <event>,
// X-Switchboard-Delivery: <delivery id> (the same on every attempt, for
// receivers that de-duplicate) and X-Switchboard-Signature: sha256=<hex
// HMAC-SHA256 of the body with the secret>. A 2xx answer within 10 s is a
// success; anything else (another status, a redirect, a timeout, a refused
// address) is a failed attempt, retried 30 s, 2 min and 8 min after the
// attempt before it; a fourth failure ends the row as "retry_exhausted".
//
// A breaker per target URL opens after 5 consecutive failures, stays open
// 60 s, then lets trial deliveries through one at a time; 2 successes close
// it, a failure opens it again. While it is open, deliveries to that URL are
// deferred to when it half-opens, without counting an attempt.
//
// Rows are claimed with a conditional update that moves next_attempt_at a
// lease ahead, so several replicas can run dispatchers on one PostgreSQL
// database and each attempt is sent once; a row whose dispatcher died is due
// again when its lease ends. The dispatcher sleeps until the earliest due row
// (on the injected clock), wakes when an enqueue commits in this process, and
// looks again every lease period for rows other replicas committed.
package webhooks
