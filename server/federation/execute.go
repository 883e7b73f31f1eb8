package federation

import (
	"fmt"
	"unicode/utf8"

	"github.com/switchboard-hq/switchboard/ent"
)

// failureText is what a result sent between instances says of an execution
// that did not complete: its failure reason (at most the 2000 bytes the
// result messages take), or how it ended.
func FailureText(ex *ent.Execution) *string {
	if ex.FailureReason != nil {
		return Ptr(clipText(*ex.FailureReason, 2000))
	}
	return Ptr(fmt.Sprintf("the agent's execution ended %s", ex.Status))
}

// clipText cuts s to n bytes at a rune boundary.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
