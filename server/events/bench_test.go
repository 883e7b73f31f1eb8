package events

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
)

// BenchmarkFanOut measures the bus's own cost per delivery to channel
// subscribers (Connect and HTTP/2 streams: dispatch to a subscriber's queue
// and the subscriber taking it), storage and the network aside. SSE streams
// over HTTP/1.1 are written directly instead (conn.go); `go run ./bench sse`
// measures those end to end.
func BenchmarkFanOut(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("subscribers=%d", n), func(b *testing.B) {
			bus := memBus()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var wg sync.WaitGroup
			for range n {
				s, _, err := bus.Subscribe(ctx, "ann", -1)
				if err != nil {
					b.Fatal(err)
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range s.c {
					}
				}()
			}
			f, err := newFrame(1, message("hello"))
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := range b.N {
				f := *f
				f.ID = int64(i + 1)
				bus.dispatch("ann", &f, false)
			}
			b.StopTimer()
			bus.Close()
			wg.Wait()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/delivery")
			if got := bus.Subscribers("ann"); got != 0 {
				b.Fatalf("%d subscribers left", got)
			}
		})
	}
}

// BenchmarkIdleSubscriber measures the bus's memory per idle channel
// subscriber (its subscription and queue; the stream's goroutine and HTTP
// buffers are net/http's).
func BenchmarkIdleSubscriber(b *testing.B) {
	const n = 10000
	for range b.N {
		bus := memBus()
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		subs := make([]*Subscription, 0, n)
		for range n {
			s, _, err := bus.Subscribe(context.Background(), "ann", -1)
			if err != nil {
				b.Fatal(err)
			}
			subs = append(subs, s)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "B/subscriber")
		runtime.KeepAlive(subs)
		bus.Close()
	}
}

// memBus is a bus without storage or background work: only fan-out.
func memBus() *Bus {
	bus := &Bus{cfg: Config{Buffer: DefaultBuffer, WriteTimeout: DefaultWriteTimeout}, hubs: map[string]*hub{}, stop: func() {}}
	bus.beat.Store(&beat{done: make(chan struct{})})
	return bus
}
