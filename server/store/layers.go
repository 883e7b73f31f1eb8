package store

import "github.com/switchboard-hq/switchboard/internal/vocab"

// The three agent configuration layers (store.proto), by who writes them:
//
//   - Layer 1, the owner: columns of the listing (store_agents), written only
//     through the owner's create and update. No user input reaches them.
//   - Layer 2, the user per task: columns of the execution (input for the
//     prompt, requester_email, requester_name, and task_inputs for the rest).
//   - Layer 3, the platform: columns of the execution set by the server (its
//     id, callback_url, caller_instance_url, task_origin, isolation_mode,
//     source_instance_id); no request message carries them.
//
// TestLayersHaveOneWriter pins the split against the contract.
var (
	Layer1 = []string{
		"contextInstructions", "contextPreparation", "requiredInputSchema", "outputSchema",
		"executionNotes", "usageExamples", "taskTypes", "installGuide", "inputFormat", "outputFormat",
	}
	Layer2 = []string{
		"prompt", "requesterEmail", "requesterName", "taskType", "tone", "outputType", "deadline",
		"additionalContext",
	}
	Layer3 = []string{
		"executionId", "callbackUrl", "callerInstanceUrl", "taskOrigin", "isolationMode", "sourceInstanceId",
	}
)

// Isolation modes: how much internal context an execution may carry.
const (
	FullAccess = string(vocab.IsolationModeFullAccess)
	OutputOnly = string(vocab.IsolationModeOutputOnly)
)

// IsolationFor is the isolation of a task origin (store.proto): the owner's own
// tasks get full access to internal context; every other origin (marketplace,
// federation, and anything unknown) the task prompt only.
func IsolationFor(taskOrigin string) string {
	if taskOrigin == "owner" {
		return FullAccess
	}
	return OutputOnly
}
