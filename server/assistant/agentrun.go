package assistant

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/queueitem"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
	"github.com/switchboard-hq/switchboard/server/queue"
	"github.com/switchboard-hq/switchboard/server/store/review"
)

// agentRunLimit bounds one run of an item's store agent from here: the
// engine's own execution timeout (30 minutes by default) ends it sooner.
const agentRunLimit = time.Hour

// runs are the item runs in flight, so Close can wait for them.
type runs struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// ItemMoved is the queue's hook (queue.Service.Moved), in the move's
// transaction: an item for a store agent (metadata agentId) that moves to
// in_progress with no execution yet runs through the store's execution
// contract once the move commits. The execution reports on the item: its
// delivery completes it with the output, a failure blocks it with the
// reason.
func (e *Executor) ItemMoved(_ context.Context, tx *db.Tx, it *ent.QueueItem, _ string) error {
	if it.Status != queueitem.StatusInProgress || it.ExecutionID != nil {
		return nil
	}
	agentID, _ := queue.Meta(it)["agentId"].(string)
	if agentID == "" {
		return nil
	}
	userID, itemID, input, door := it.UserID, it.ID, taskText(it), doorOf(it)
	tx.AfterCommit(func() {
		e.runs.wg.Add(1)
		go func() {
			defer e.runs.wg.Done()
			e.runAgent(userID, itemID, agentID, input, door)
		}()
	})
	return nil
}

// doorOf is how the run of an item started, for the store's count of runs
// by origin: the item of an assistant tag (dispatch_queue, source
// assistant) is the assistant's, an A2A task's or an MCP tool's item is
// theirs (source a2a:<label>, mcp:<label>), any other the API's.
func doorOf(it *ent.QueueItem) auth.Door {
	src := ""
	if it.Source != nil {
		src = *it.Source
	}
	switch {
	case src == source:
		return auth.DoorAssistant
	case strings.HasPrefix(src, "a2a:"):
		return auth.DoorA2A
	case strings.HasPrefix(src, "mcp:"):
		return auth.DoorMCP
	}
	return auth.DoorAPI
}

// taskText is what the agent is asked: the item's optimized prompt when the
// optimizer made one, else its title and description.
func taskText(it *ent.QueueItem) string {
	if p, _ := queue.Meta(it)["optimizedPrompt"].(string); strings.TrimSpace(p) != "" {
		return p
	}
	if it.Description != nil && strings.TrimSpace(*it.Description) != "" {
		return it.Title + "\n\n" + *it.Description
	}
	return it.Title
}

// runAgent executes the agent as the item's owner. A refusal before any
// execution exists (the agent uninstalled, payment required) and a run of
// the owner's own agent, which no delivery follows, are reported on the item
// here.
func (e *Executor) runAgent(userID, itemID, agentID, input string, door auth.Door) {
	ctx, cancel := context.WithTimeout(e.runs.ctx, agentRunLimit)
	defer cancel()
	ctx = auth.WithPrincipal(review.ForItem(ctx, itemID), &auth.Principal{UserID: userID, Via: auth.ViaSession, Name: source})
	ctx = auth.WithDoor(ctx, door)
	res, err := e.Executions.ExecuteStoreAgent(ctx, &switchboardv1.ExecuteStoreAgentRequest{Id: agentID, Input: input})
	if err != nil {
		e.report(ctx, itemID, queue.Blocked, fmt.Sprintf("The store agent could not run: %s", apperr.From(err).Message))
		return
	}
	if !res.GetIsOwnAgent() {
		return // the execution's delivery completes the item
	}
	switch res.GetStatus() {
	case string(vocab.ExecutionStatusCompleted):
		e.report(ctx, itemID, "", res.GetOutput())
	case string(vocab.ExecutionStatusFailed), string(vocab.ExecutionStatusTimeout):
		e.report(ctx, itemID, queue.Blocked, fmt.Sprintf("The agent did not deliver (%s).", res.GetStatus()))
	}
}

// report sets the item's result through the queue's own route.
func (e *Executor) report(ctx context.Context, itemID, status, result string) {
	req := &switchboardv1.ReportQueueResultRequest{Id: itemID, Result: result, Status: status}
	if _, err := call(ctx, e.Queue.ReportQueueResult, req); err != nil && e.Logger != nil {
		e.Logger.Warn("assistant: reporting an agent run on its item", "item", itemID, "err", err)
	}
}

// Close stops the item runs in flight and waits for them.
func (e *Executor) Close() {
	e.runs.cancel()
	e.runs.wg.Wait()
}
