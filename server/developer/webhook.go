package developer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/server/federation"
)

// webhookTimeout bounds one delivery.
const webhookTimeout = 10 * time.Second

// notify fires the approval webhook for a committed decision when the source
// instance is known: once, in the background, through the address rule. A
// failure is logged; the decision stands.
func (s *Service) notify(a *ent.StoreAgent, reason *string) {
	if a.SourceInstanceURL == nil {
		return
	}
	body, err := json.Marshal(federation.ApprovalOf(a, reason, s.now()))
	if err != nil {
		s.logger().Error("approval webhook body", "agent_id", a.ID, "err", err)
		return
	}
	url := strings.TrimRight(*a.SourceInstanceURL, "/") + federation.WebhookPath
	s.hooks.Add(1)
	go func() {
		defer s.hooks.Done()
		if err := s.deliver(url, body); err != nil {
			s.logger().Warn("approval webhook not delivered", "agent_id", a.ID, "status", a.Status, "err", err)
		}
	}()
}

func (s *Service) deliver(url string, body []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), webhookTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Service-Event", federation.EventAgentApproval)
	resp, err := s.Egress.Client(webhookTimeout).Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("answered HTTP %d", resp.StatusCode)
	}
	return nil
}
