package alarm

import (
	"testing"
	"time"

	"github.com/jonboulle/clockwork"
)

func TestSleepEndsOnTheClock(t *testing.T) {
	clock := clockwork.NewFakeClock()
	a := New(clock)
	done := make(chan bool)
	go func() { done <- a.Sleep(time.Minute) }()
	if err := clock.BlockUntilContext(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	if !<-done {
		t.Fatal("Sleep reported stopped after its time passed")
	}
}

func TestWakeEndsSleepAndFolds(t *testing.T) {
	a := New(clockwork.NewFakeClock())
	a.Wake()
	a.Wake() // folds into the pending one
	if !a.Sleep(time.Hour) {
		t.Fatal("Sleep reported stopped after a Wake")
	}
	select {
	case <-a.wake:
		t.Fatal("two Wakes left two pending")
	default:
	}
}

func TestStop(t *testing.T) {
	a := New(clockwork.NewFakeClock())
	if !a.Sleep(0) {
		t.Fatal("Sleep(0) before Stop reported stopped")
	}
	if !a.Stop() {
		t.Fatal("the first Stop reported the alarm stopped already")
	}
	if a.Stop() {
		t.Fatal("the second Stop reported it stopped the alarm")
	}
	if a.Sleep(time.Hour) {
		t.Fatal("Sleep after Stop reported true")
	}
	select {
	case <-a.Stopped():
	default:
		t.Fatal("Stopped is open after Stop")
	}
}
