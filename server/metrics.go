package server

import (
	"net/http"

	"github.com/switchboard-hq/switchboard/internal/metrics"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/board"
	"github.com/switchboard-hq/switchboard/server/httpapi"
)

// The durable timers' names in switchboard_timers_fired_total: the row's
// name for a periodic timer, these for the loops over due rows.
const (
	timerEconomy  = "economy"
	timerDigests  = "relay_digests"
	timerRenewals = "team_renewals"
	timerReview   = "store_review"
	timerOutbox   = "webhook_outbox"
)

// measure registers, once the background work has started, the families
// read from the server's parts at scrape time: the pool, the outbox, the
// open streams and each timer's fires.
func (h *house) measure(app *App) error {
	m := h.cfg.Metrics
	if err := m.Register(
		metrics.Pool(h.cfg.DB.SQL),
		metrics.Query("outbox_depth", "Outbox rows (webhook and federation deliveries) waiting to be delivered.",
			h.cfg.Logger, h.hooks.Depth),
		metrics.Counts("outbox_deliveries_total", "Outbox delivery attempts by outcome, on this replica.",
			"outcome", h.hooks.Outcomes),
		metrics.Gauge("streams_open", "Streams open on this replica (chat and dashboard SSE, Connect streams, chat send, A2A, MCP).",
			func() float64 { return float64(h.gate.StreamsOpen()) }),
	); err != nil {
		return err
	}
	m.Timer(board.TimerName, app.BoardScan.Fires)
	for name, fires := range app.Learnings.Fires() {
		m.Timer(name, fires)
	}
	m.Timer(timerEconomy, app.Economy.Fires)
	m.Timer(timerDigests, app.Digests.Fires)
	m.Timer(timerReview, h.lifetime.Timer.Fires)
	m.Timer(timerOutbox, h.hooks.Fires)
	if app.Renewals != nil {
		m.Timer(timerRenewals, app.Renewals.Fires)
	}
	return nil
}

// refuseMetrics answers GET /metrics on the main address without the
// --metrics-token bearer.
func refuseMetrics(w http.ResponseWriter, r *http.Request) {
	httpapi.WriteREST(w, r, apperr.Unauthenticated("missing or wrong metrics token: send \"Authorization: Bearer <--metrics-token>\""))
}
