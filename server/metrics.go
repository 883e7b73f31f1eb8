package server

import (
	"net/http"

	"github.com/switchboard-hq/switchboard/internal/metrics"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/httpapi"
	"github.com/switchboard-hq/switchboard/server/webhooks"
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
	// Every timer of the registry, by its name there; the outbox counts
	// its own passes.
	for _, name := range app.Timers.Names() {
		if app.Timers.Owns(name) {
			continue
		}
		m.Timer(name, func() uint64 { return app.Timers.Fires(name) })
	}
	m.Timer(webhooks.TimerName, h.hooks.Fires)
	return nil
}

// refuseMetrics answers GET /metrics on the main address without the
// --metrics-token bearer.
func refuseMetrics(w http.ResponseWriter, r *http.Request) {
	httpapi.WriteREST(w, r, apperr.Unauthenticated("missing or wrong metrics token: send \"Authorization: Bearer <--metrics-token>\""))
}
