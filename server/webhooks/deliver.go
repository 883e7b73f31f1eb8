package webhooks

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/predicate"
	"github.com/switchboard-hq/switchboard/ent/setting"
	"github.com/switchboard-hq/switchboard/ent/webhookdelivery"
	"github.com/switchboard-hq/switchboard/internal/breaker"
	"github.com/switchboard-hq/switchboard/internal/egress"
	"github.com/switchboard-hq/switchboard/internal/ids"
)

// Headers of every delivery.
const (
	HeaderEvent     = "X-Switchboard-Event"
	HeaderSignature = "X-Switchboard-Signature"
	HeaderDelivery  = "X-Switchboard-Delivery"
)

// Sign is the X-Switchboard-Signature value of body under secret.
func Sign(secret string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// outcome is what one attempt did with its row.
type outcome int

const (
	skipped        outcome = iota // claimed elsewhere, no longer due, or put back
	deferred                      // its target's breaker is open
	cancelled                     // its target is gone
	delivered                     // sent and answered 2xx
	retryPending                  // failed; another attempt is scheduled
	retryExhausted                // failed its last attempt
	outcomes                      // how many there are
)

// outcomeNames are the outcomes the metrics count (all but skipped), as
// the audit's process_retries names them: the row's status where the
// outcome is one.
var outcomeNames = [outcomes]string{
	deferred: "deferred", cancelled: string(webhookdelivery.StatusCancelled), delivered: string(webhookdelivery.StatusDelivered),
	retryPending: "retry_pending", retryExhausted: string(webhookdelivery.StatusRetryExhausted),
}

// Outcomes is how many attempts of this dispatcher ended in each outcome,
// by name (switchboard_outbox_deliveries_total).
func (d *Dispatcher) Outcomes() map[string]uint64 {
	out := make(map[string]uint64, outcomes-1)
	for o := deferred; o < outcomes; o++ {
		out[outcomeNames[o]] = d.counted[o].Load()
	}
	return out
}

// claimable is the claim's condition: due, or, forced (Retry), not held by
// a live claim.
func claimable(now time.Time, force bool) predicate.WebhookDelivery {
	due := webhookdelivery.NextAttemptAtLTE(now)
	if !force {
		return due
	}
	return webhookdelivery.Or(due, webhookdelivery.ClaimTokenIsNil())
}

// attempt works one row: defer it while the target's breaker is open,
// otherwise claim it, send it and record the outcome under the claim. A
// forced attempt takes a pending row before its time.
func (d *Dispatcher) attempt(row *ent.WebhookDelivery, force bool) outcome {
	return d.try(row, force, nil)
}

// try is attempt; a non-nil ans (Attempt's caller waiting) is given the
// answer, and a refusal (a 4xx answer but 408) ends the row: the caller
// reports it, and sending it again would be refused again.
func (d *Dispatcher) try(row *ent.WebhookDelivery, force bool, ans *Attempted) outcome {
	out := d.work(row, force, ans)
	d.counted[out].Add(1)
	return out
}

func (d *Dispatcher) work(row *ent.WebhookDelivery, force bool, ans *Attempted) outcome {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	now := d.now()
	ticket, until, let := d.breakers.Allow(row.URL)
	if !let {
		if until.IsZero() {
			until = now // half-open and probing: due again at once
		}
		// Deferred, not attempted: only if nobody has claimed it meanwhile.
		n, err := d.db.WebhookDelivery.Update().
			Where(webhookdelivery.ID(row.ID), webhookdelivery.StatusEQ(webhookdelivery.StatusPending), claimable(now, force)).
			SetNextAttemptAt(until).SetUpdatedAt(now).Save(ctx)
		if err != nil || n != 1 {
			if err != nil {
				d.log.Error("webhooks: defer delivery", "delivery", row.ID, "err", err)
			}
			return skipped
		}
		return deferred
	}
	// Anything but a send's own answer (another dispatcher's claim, a
	// removed target, closing) tells nothing of the target.
	result := breaker.Abandoned
	defer func() { d.breakers.Record(ticket, result) }()
	token := ids.New()
	n, err := d.db.WebhookDelivery.Update().
		Where(webhookdelivery.ID(row.ID), webhookdelivery.StatusEQ(webhookdelivery.StatusPending), claimable(now, force)).
		SetNextAttemptAt(now.Add(Lease)).SetClaimToken(token).SetUpdatedAt(now).Save(ctx)
	if err != nil || n != 1 {
		if err != nil {
			d.log.Error("webhooks: claim delivery", "delivery", row.ID, "err", err)
		}
		return skipped // another dispatcher has it, or it is no longer due
	}
	if force {
		// Read before it was claimed: another attempt may have come between.
		if row, err = d.db.WebhookDelivery.Get(ctx, row.ID); err != nil {
			d.log.Error("webhooks: read claimed delivery", "delivery", row.ID, "err", err)
			return skipped // due again when the claim's lease ends
		}
	}
	mine := d.db.WebhookDelivery.Update().
		Where(webhookdelivery.ID(row.ID), webhookdelivery.ClaimToken(token), webhookdelivery.StatusEQ(webhookdelivery.StatusPending))

	secret, found := "", true // a forward has no settings target
	var cred http.Header
	gone := "target removed from settings"
	switch row.Kind {
	case webhookdelivery.KindPush:
		secret, found, err = d.secret(ctx, row)
	case webhookdelivery.KindFederation:
		cred, found, err = d.federationCredential(ctx, row)
		gone = "the instance is no longer registered"
	}
	switch {
	case err != nil:
		d.log.Error("webhooks: read target", "delivery", row.ID, "err", err)
		d.save(ctx, row, mine.SetNextAttemptAt(now.Add(time.Second)).ClearClaimToken())
		return skipped
	case !found:
		d.save(ctx, row, mine.SetStatus(webhookdelivery.StatusCancelled).ClearClaimToken().SetLastError(gone))
		return cancelled
	}

	retries := Retries
	if row.Kind == webhookdelivery.KindFederation {
		retries = d.federationRetries
	}
	status, answer, sendErr := d.send(row, secret, cred, len(retries))
	if ans != nil {
		ans.Status, ans.Body, ans.Err = status, answer, sendErr
	}
	if sendErr != nil && d.ctx.Err() != nil {
		// Closing: the attempt is abandoned and due again for whoever is next.
		d.save(ctx, row, mine.SetNextAttemptAt(now).ClearClaimToken())
		return skipped
	}
	ok := sendErr == nil
	result = breaker.Failure
	if ok {
		result = breaker.Success
	}
	attempts := row.Attempts + 1
	upd := mine.SetAttempts(attempts).SetLastAttemptAt(now).ClearClaimToken().SetUpdatedAt(d.now())
	if status != 0 {
		upd = upd.SetLastStatus(int32(status))
	} else {
		upd = upd.ClearLastStatus()
	}
	host := hostOf(row.URL)
	var out outcome
	switch {
	case ok:
		out, upd = delivered, upd.SetStatus(webhookdelivery.StatusDelivered).SetDeliveredAt(d.now()).ClearLastError()
		d.log.Info("webhook delivered", "delivery", row.ID, "event", row.Event, "host", host, "attempt", attempts, "status", status)
	case ans != nil && refused(status):
		out, upd = cancelled, upd.SetStatus(webhookdelivery.StatusCancelled).SetLastError("refused: "+sendErr.Error())
		d.log.Info("webhook refused", "delivery", row.ID, "event", row.Event, "host", host, "status", status)
	case int(attempts) > len(retries):
		out, upd = retryExhausted, upd.SetStatus(webhookdelivery.StatusRetryExhausted).SetLastError(sendErr.Error())
		d.log.Warn("webhook retries exhausted", "delivery", row.ID, "event", row.Event, "host", host, "attempts", attempts, "err", sendErr)
	default:
		next := now.Add(retries[attempts-1])
		out, upd = retryPending, upd.SetNextAttemptAt(next).SetLastError(sendErr.Error())
		d.log.Info("webhook attempt failed", "delivery", row.ID, "event", row.Event, "host", host, "attempt", attempts, "next", next, "err", sendErr)
	}
	d.save(ctx, row, upd)
	return out
}

func (d *Dispatcher) save(ctx context.Context, row *ent.WebhookDelivery, upd *ent.WebhookDeliveryUpdate) {
	if _, err := upd.Save(ctx); err != nil {
		d.log.Error("webhooks: record delivery", "delivery", row.ID, "err", err)
	}
}

// secret reads the target's current secret; found is false once the target
// is gone from the account's settings.
func (d *Dispatcher) secret(ctx context.Context, row *ent.WebhookDelivery) (secret string, found bool, err error) {
	s, err := d.db.Setting.Query().Where(setting.UserID(row.UserID)).Only(ctx)
	if ent.IsNotFound(err) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	for _, k := range Targets(s.ServiceKeys) {
		if k.URL == row.URL {
			return k.Secret, true, nil
		}
	}
	return "", false, nil
}

// federationCredential is the header a federation row carries, read now:
// rotating the instance's secret does not strand queued rows.
func (d *Dispatcher) federationCredential(ctx context.Context, row *ent.WebhookDelivery) (http.Header, bool, error) {
	if d.credential == nil || row.InstanceID == nil {
		return nil, false, nil
	}
	name, value, found, err := d.credential(ctx, *row.InstanceID)
	if err != nil || !found {
		return nil, found, err
	}
	h := http.Header{}
	h.Set(name, value)
	return h, true, nil
}

// send POSTs the row's body; a nil error is a 2xx answer. The error text is
// stored on the row, so it names the status or the failure, never the URL's
// query or the secret. A federation row goes through the audited client,
// told which attempt this is of a schedule of retries.
func (d *Dispatcher) send(row *ent.WebhookDelivery, secret string, cred http.Header, retries int) (status int, answer []byte, err error) {
	ctx, cancel := context.WithTimeout(d.ctx, Timeout)
	defer cancel()
	client := d.client
	if row.Kind == webhookdelivery.KindFederation {
		client = d.federation
		if d.isPeer != nil && row.InstanceID != nil && d.isPeer(*row.InstanceID) {
			client = d.peer
		}
		ctx = WithAttempt(ctx, Attempt{Retry: int(row.Attempts), Last: int(row.Attempts) >= retries})
	}
	body := []byte(row.Payload)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, row.URL, bytes.NewReader(body))
	if err != nil {
		return 0, nil, fmt.Errorf("bad target url")
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Switchboard-Webhooks/1")
	req.Header.Set(HeaderDelivery, row.ID)
	if row.Kind == webhookdelivery.KindPush {
		req.Header.Set(HeaderEvent, row.Event)
		req.Header.Set(HeaderSignature, Sign(secret, body))
	}
	for k, v := range row.Headers {
		req.Header.Set(k, v)
	}
	for k, v := range cred {
		req.Header[k] = v
	}
	res, err := client.Do(req)
	if err != nil {
		return 0, nil, describe(err)
	}
	defer res.Body.Close()
	answer, _ = io.ReadAll(io.LimitReader(res.Body, 64<<10))
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return res.StatusCode, answer, fmt.Errorf("answered %d", res.StatusCode)
	}
	return res.StatusCode, answer, nil
}

// refused is an answer that says the request itself is wrong or not wanted,
// so sending it again changes nothing; 408 (the peer timed out) is not.
func refused(status int) bool {
	return status >= 400 && status < 500 && status != http.StatusRequestTimeout
}

// describe turns a client error into text without the URL (it may carry a
// token in its path or query), addresses or resolver details
// (egress.Reason).
func describe(err error) error {
	switch {
	case egress.Refused(err):
		return egress.ErrRefused
	case errors.Is(err, context.DeadlineExceeded):
		return errors.New("timed out")
	case errors.Is(err, context.Canceled):
		return errors.New("cancelled")
	}
	return errors.New(egress.Reason(err))
}

func hostOf(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.Host
	}
	return ""
}

// Attempted is what Attempt's one attempt got: Delivered when the target
// answered 2xx; Status 0 when there was no answer (unreachable, or the
// target's breaker open: Deferred); Body the answer's first 64 KB.
type Attempted struct {
	Delivered, Deferred, Refused bool
	Status                       int
	Body                         []byte
	Err                          error
}

// Attempt sends the held row id now, on its caller's request, and answers
// what came back: delivered, deferred by the target's open breaker, refused
// (a 4xx but 408: the row ends, cancelled), or failed (the row waits for its
// retry schedule, as any other). A row another attempt holds is left to it
// (neither delivered nor refused).
func (d *Dispatcher) Attempt(ctx context.Context, id string) (Attempted, error) {
	row, err := d.db.WebhookDelivery.Get(ctx, id)
	if err != nil {
		return Attempted{}, err
	}
	var ans Attempted
	switch d.try(row, true, &ans) {
	case delivered:
		ans.Delivered = true
	case deferred:
		ans.Deferred = true
		d.Wake() // its time is the breaker's, maybe before the dispatcher's next look
	case cancelled:
		ans.Refused = ans.Status != 0
	case retryPending:
		d.Wake() // likewise for its first retry
	}
	return ans, nil
}
