package llm

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
)

func TestLimiterTwoStreamsPerAccount(t *testing.T) {
	l := NewLimiter(StreamsPerAccount)
	r1, err1 := l.Acquire("ann")
	r2, err2 := l.Acquire("ann")
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if _, err := l.Acquire("ann"); !errors.Is(err, ErrTooManyStreams) {
		t.Fatalf("third stream: %v", err)
	}
	if rb, err := l.Acquire("bob"); err != nil {
		t.Fatalf("another account is not limited by ann's streams: %v", err)
	} else {
		rb()
	}
	r1()
	r1() // a second release gives nothing more back
	r3, err := l.Acquire("ann")
	if err != nil {
		t.Fatalf("after a release: %v", err)
	}
	if _, err := l.Acquire("ann"); !errors.Is(err, ErrTooManyStreams) {
		t.Fatalf("a double release freed two: %v", err)
	}
	r2()
	r3()
}

// Many requests of one account at once: exactly two get a stream.
func TestLimiterConcurrent(t *testing.T) {
	l := NewLimiter(StreamsPerAccount)
	var ok, refused atomic.Int32
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range 50 {
		wg.Go(func() {
			<-start
			if _, err := l.Acquire("ann"); err == nil {
				ok.Add(1)
			} else if errors.Is(err, ErrTooManyStreams) {
				refused.Add(1)
			}
		})
	}
	close(start)
	wg.Wait()
	if ok.Load() != 2 || refused.Load() != 48 {
		t.Fatalf("granted %d, refused %d", ok.Load(), refused.Load())
	}
}
