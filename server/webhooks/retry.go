package webhooks

import (
	"context"
	"sync"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/webhookdelivery"
)

// Processed counts what Retry did with the deliveries it took.
type Processed struct {
	// Delivered, RetryPending and RetryExhausted were sent now.
	Delivered, RetryPending, RetryExhausted int
	// Deferred were not sent: their target's breaker is open.
	Deferred int
	// Cancelled were not sent: their instance is gone.
	Cancelled int
}

// Sent is how many deliveries Retry sent.
func (p Processed) Sent() int { return p.Delivered + p.RetryPending + p.RetryExhausted }

func (p *Processed) add(o outcome) {
	switch o {
	case delivered:
		p.Delivered++
	case retryPending:
		p.RetryPending++
	case retryExhausted:
		p.RetryExhausted++
	case deferred:
		p.Deferred++
	case cancelled:
		p.Cancelled++
	case skipped:
	}
}

// Retry is the admin's process_retries: it attempts now every federation
// delivery that waits for a retry or is due (at most one batch), each
// target's in order, and answers once they are done. The dispatcher sends
// due rows on its own; Retry brings the waiting ones forward, so a spoke
// that is back need not wait out the schedule. A target's lane that is
// running is waited for; an open breaker defers its rows as usual; a row
// another dispatcher holds is left to it.
func (d *Dispatcher) Retry(ctx context.Context) (Processed, error) {
	now := d.now()
	rows, err := d.db.WebhookDelivery.Query().
		Where(webhookdelivery.KindEQ(webhookdelivery.KindFederation), webhookdelivery.StatusEQ(webhookdelivery.StatusPending),
			webhookdelivery.Or(webhookdelivery.AttemptsGT(0), webhookdelivery.NextAttemptAtLTE(now))).
		Order(ent.Asc(webhookdelivery.FieldNextAttemptAt), ent.Asc(webhookdelivery.FieldID)).
		Limit(batch).All(ctx)
	if err != nil {
		return Processed{}, err
	}
	byURL, order := byTarget(rows)
	var (
		mu   sync.Mutex
		out  Processed
		wg   sync.WaitGroup
		slot = make(chan struct{}, maxLanes)
	)
	for _, url := range order {
		slot <- struct{}{}
		if !d.take(url) {
			break // closing
		}
		wg.Add(1)
		go func(url string, rows []*ent.WebhookDelivery) {
			defer func() { <-slot }()
			defer wg.Done()
			defer d.release(url)
			for _, row := range rows {
				o := d.attempt(row, true)
				mu.Lock()
				out.add(o)
				mu.Unlock()
			}
		}(url, byURL[url])
	}
	wg.Wait()
	return out, nil
}

// take waits until url has no lane running and makes it Retry's; false once
// the dispatcher is closing.
func (d *Dispatcher) take(url string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	for !d.closed && d.busy[url] {
		d.idle.Wait()
	}
	if d.closed {
		return false
	}
	d.busy[url] = true
	d.lanes.Add(1)
	return true
}
