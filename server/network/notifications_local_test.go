package network

import "testing"

// A new learning's notification is local (RULINGS, Reconciliation 9): no
// peer sends or receives one; the other types pass.
func TestLearningNotificationIsLocal(t *testing.T) {
	if err := NotificationBody("learning_generated", "New learning"); err == nil {
		t.Error("learning_generated accepted between instances")
	}
	if err := NotificationBody("mention", "Hi"); err != nil {
		t.Errorf("mention refused: %v", err)
	}
}
