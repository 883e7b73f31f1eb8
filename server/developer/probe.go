package developer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/internal/egress"
	"github.com/switchboard-hq/switchboard/internal/ids"
	"github.com/switchboard-hq/switchboard/server/store/dispatch"
)

// Verdict is what a conformance probe found.
type Verdict struct {
	Conforms bool
	// Hint says why not; empty when it conforms.
	Hint       string
	HTTPStatus *int
	ResponseMS int
}

// Prober sends the conformance probe: the seeded task to the agent in the
// real dispatch shape, flagged as a test (X-Service-Test, body test: true).
// credential is the agent's opened credential ("" for auth method none).
type Prober interface {
	Probe(ctx context.Context, agent *ent.StoreAgent, credential, task string) Verdict
}

// seededTask is the agent task every registration seeds: the text the probe
// sends and the ship-gate run records.
func seededTask(name string) string {
	return fmt.Sprintf("Ship-gate conformance check for %q: reply to this test task with a short confirmation.", name)
}

// dispatchProber is the built-in Prober: the store's own dispatch with the
// test flag (server/store/dispatch), so the probe is exactly the call a
// store execution makes, and its verdict is dispatch.Conforms.
type dispatchProber struct{ d *dispatch.Dispatcher }

func newDispatchProber(p egress.Policy, now func() time.Time) *dispatchProber {
	return &dispatchProber{d: dispatch.New(dispatch.Config{Egress: p, Now: now})}
}

func (p *dispatchProber) Probe(ctx context.Context, a *ent.StoreAgent, credential, task string) Verdict {
	if a.EndpointURL == nil {
		return Verdict{Hint: "the agent has no endpointUrl"}
	}
	res, err := p.d.Send(ctx, dispatch.Call{
		URL: *a.EndpointURL, ExecutionID: ids.New(), Input: task, Format: string(a.InputFormat),
		AuthMethod: string(a.AuthMethod), Credential: credential, Test: true,
	})
	ok, hint := dispatch.Conforms(res, err)
	v := Verdict{Conforms: ok, Hint: hint, ResponseMS: int(res.Elapsed.Milliseconds())}
	var se *dispatch.StatusError
	switch {
	case err == nil:
		v.HTTPStatus = &res.StatusCode
	case errors.As(err, &se):
		v.HTTPStatus = &se.Code
	case egress.Refused(err):
		// Reason's words name the flag that would admit the address.
		v.Hint = "the endpoint: " + egress.Reason(err)
	}
	return v
}

// errText says why the health check got no answer, in words only.
func errText(err error) string { return egress.Reason(err) }

// healthTimeout bounds the health check.
const healthTimeout = 10 * time.Second

// healthCheck GETs url and answers the status, or why there is none.
func healthCheck(ctx context.Context, client *http.Client, url string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	return resp.StatusCode, nil
}
