package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// The protocol endpoints against Connect (issue 13): the same read of one
// task through A2A's JSON-RPC tasks/get and through Connect's GetQueueItem
// of the item behind it, server CPU per request as a ratio.

// protocolGoal is the most A2A tasks/get may cost over the Connect read.
const protocolGoal = 1.5

// a2aSent is the answer to the A2A message/send that makes the bench's task:
// the task's id and its queue item's.
type a2aSent struct {
	Result struct {
		ID       string `json:"id"`
		Metadata struct {
			QueueItemID string `json:"queueItemId"`
		} `json:"metadata"`
	} `json:"result"`
	Error json.RawMessage `json:"error"`
}

// protocolTargets sends one A2A task and answers (g) its tasks/get and (h)
// the Connect read of its item.
func protocolTargets(ctx context.Context, e *env) ([]*target, error) {
	auth := "Bearer " + e.key
	var sent a2aSent
	c := &http.Client{Timeout: 30 * time.Second}
	if err := postJSON(ctx, c, e.server.url+"/api/a2a", map[string]string{"Authorization": auth}, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "message/send",
		"params": map[string]any{"message": map[string]any{"messageId": "bench", "role": "user",
			"parts": []any{map[string]any{"kind": "text", "text": "Bench task\nread back by tasks/get"}}}}}, http.StatusOK, &sent); err != nil {
		return nil, err
	}
	if sent.Result.ID == "" || sent.Result.Metadata.QueueItemID == "" {
		return nil, fmt.Errorf("message/send answered no task: %s", sent.Error)
	}
	return []*target{
		{key: "g", label: "(g) A2A tasks/get (JSON-RPC)", proc: e.server, method: http.MethodPost, path: "/api/a2a",
			body:   fmt.Appendf(nil, `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":%q}}`, sent.Result.ID),
			header: headers("Authorization", auth, "Content-Type", "application/json"), want: http.StatusOK},
		{key: "h", label: "(h) Connect JSON GetQueueItem, the same task's item", proc: e.server, method: http.MethodPost,
			path: "/switchboard.v1.QueueService/GetQueueItem", body: fmt.Appendf(nil, `{"id":%q}`, sent.Result.Metadata.QueueItemID),
			header: headers("Authorization", auth, "Content-Type", "application/json", "Connect-Protocol-Version", "1"), want: http.StatusOK},
	}, nil
}

// verifyProtocols checks that (g) answers the task, not a JSON-RPC error
// (which is HTTP 200 too), and (h) the item.
func verifyProtocols(ctx context.Context, c *http.Client, ts []*target) error {
	for _, t := range ts {
		body, err := fetch(ctx, c, t)
		if err != nil {
			return err
		}
		var m map[string]any
		if err := json.Unmarshal(body, &m); err != nil {
			return fmt.Errorf("%s: %w", t.label, err)
		}
		if m["result"] == nil && m["item"] == nil {
			return fmt.Errorf("%s answered %.300s", t.label, body)
		}
	}
	return nil
}
