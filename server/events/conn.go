package events

import (
	"bytes"
	"net"
	"net/http"
	"sync"
	"syscall"
	"time"
)

// Streams on hijacked connections (issue 4, item 7: at most 16 KiB and 10 µs
// of CPU per idle subscriber and delivery).
//
// An HTTP/1.1 response held open by net/http keeps a goroutine (its stack
// grown by the middleware chain), 4 KiB read and write buffers and a chunking
// buffer: more than the budget before any event, and every event wakes the
// goroutine to copy it through two buffers. So once a stream is admitted the
// SSE handler takes the connection over, writes the response head, the
// connected event and the replay itself, and returns. From then on the bus
// writes each event straight to the socket from the goroutine that fans it
// out: one non-blocking write(2) per subscriber, the frame shared by all.
// Only a subscriber whose socket buffer is full gets a goroutine, which
// writes what waits for it (at most Config.Buffer events, else it is dropped)
// with a deadline, and exits once it has caught up.

// sseConn is a hijacked connection carrying one SSE stream. send and beat are
// called with bus.mu held.
type sseConn struct {
	conn net.Conn
	raw  syscall.RawConn // nil: no direct writes (not a socket); the writer goroutine does them all
	sub  *Subscription
	// release gives back the stream's slot under the gate's cap when the
	// connection closes (nil: none).
	release func()

	mu      sync.Mutex
	queue   [][]byte // waiting for the writer goroutine; the first may be a frame's remainder
	writing bool     // the writer goroutine runs
	closing bool     // close once the queue is written (finish)
	closed  bool
	// rawWrite's argument and results: the callback is bound once per
	// connection rather than allocated per write.
	p        []byte
	n        int
	errno    error
	rawWrite func(fd uintptr) bool
}

func newSSEConn(conn net.Conn, sub *Subscription) *sseConn {
	c := &sseConn{conn: conn, sub: sub}
	if sc, ok := conn.(syscall.Conn); ok {
		if raw, err := sc.SyscallConn(); err == nil {
			c.raw = raw
			c.rawWrite = c.writeOnce
		}
	}
	return c
}

// send writes p now if the socket takes it, else queues it behind what waits.
// False: the stream is over (the connection failed, or more than the buffer
// waits) and the connection is closed; the client resumes with Last-Event-ID.
func (c *sseConn) send(p []byte) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sendLocked(p)
}

func (c *sseConn) sendLocked(p []byte) bool {
	if c.closed {
		return false
	}
	if c.writing {
		// Like a channel of Buffer frames behind the one being written.
		if len(c.queue) > c.sub.bus.cfg.Buffer {
			c.closeLocked()
			return false
		}
		c.queue = append(c.queue, p)
		return true
	}
	n, err := c.tryWrite(p)
	if err != nil {
		c.closeLocked()
		return false
	}
	if n < len(p) {
		c.queue = append(c.queue, p[n:])
		c.writing = true
		c.sub.bus.goRun(c.drain)
	}
	return true
}

// beat sends a heartbeat to an idle stream, first checking that the client
// is still there: an idle client that hung up is otherwise noticed only by a
// second write. A stream with frames waiting is not idle and is left alone.
func (c *sseConn) beat(p []byte) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return false
	}
	if c.writing {
		return true
	}
	if c.peerGone() {
		c.closeLocked()
		return false
	}
	return c.sendLocked(p)
}

// drain is the slow subscriber's goroutine: it writes the queue with a
// deadline per write, and returns the stream to direct writes once empty.
func (c *sseConn) drain() {
	for {
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return
		}
		if len(c.queue) == 0 {
			if c.closing {
				c.closeLocked()
				c.mu.Unlock()
				return
			}
			// A pending deadline would make the next direct write fail.
			_ = c.conn.SetWriteDeadline(time.Time{})
			c.queue, c.writing = nil, false
			c.mu.Unlock()
			return
		}
		p := c.queue[0]
		c.mu.Unlock()
		_ = c.conn.SetWriteDeadline(time.Now().Add(c.sub.bus.cfg.WriteTimeout)) //nolint:forbidigo // network deadline, not business time
		if _, err := c.conn.Write(p); err != nil {
			c.sub.Close() // leaves the bus
			c.close()     // (Close leaves a finished stream's connection)
			return
		}
		c.mu.Lock()
		if !c.closed {
			c.queue[0] = nil
			c.queue = c.queue[1:]
		}
		c.mu.Unlock()
	}
}

// finish ends the stream with p, its last event: written after what waits,
// then the connection closes. The subscription has left the bus, so nothing
// follows p.
func (c *sseConn) finish(p []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return
	}
	c.closing = true
	if c.writing {
		c.queue = append(c.queue, p)
		return
	}
	n, err := c.tryWrite(p)
	if err != nil || n == len(p) {
		c.closeLocked()
		return
	}
	c.queue = append(c.queue, p[n:])
	c.writing = true
	c.sub.bus.goRun(c.drain)
}

func (c *sseConn) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closeLocked()
}

func (c *sseConn) closeLocked() {
	if !c.closed {
		c.closed, c.queue = true, nil
		_ = c.conn.Close()
		if c.release != nil {
			c.release()
		}
	}
}

// serveConn runs a stream on a hijacked HTTP/1.1 connection: it writes the
// response head (h: what middleware set, plus the stream's own headers), the
// connected event and the replay, then hands the stream to the bus. release
// is called once the connection closes.
func (b *Bus) serveConn(conn net.Conn, h http.Header, o *opened, release func()) {
	// No chunked encoding: the body ends when the connection does.
	h.Set("Connection", "close")
	h.Set("Date", time.Now().UTC().Format(http.TimeFormat)) //nolint:forbidigo // HTTP's own Date header, as net/http writes it, not business time
	var head bytes.Buffer
	head.WriteString("HTTP/1.1 200 OK\r\n")
	_ = h.Write(&head)
	head.WriteString("\r\n")
	head.Write(o.connected.SSE)
	write := func(p []byte) error {
		if err := conn.SetWriteDeadline(time.Now().Add(b.cfg.WriteTimeout)); err != nil { //nolint:forbidigo // network deadline, not business time
			return err
		}
		_, err := conn.Write(p)
		return err
	}
	err := write(head.Bytes())
	last := int64(-1)
	for _, f := range o.replay {
		if err != nil {
			break
		}
		err = write(f.SSE)
		last = f.ID
	}
	if err == nil {
		// Direct writes are non-blocking and refuse an expired deadline.
		err = conn.SetWriteDeadline(time.Time{})
	}
	c := newSSEConn(conn, o.sub)
	c.release = release
	if err != nil || !b.attach(o.sub, c, last) {
		c.close()
		o.sub.Close()
	}
}

// attach moves s, until now a channel nobody reads, onto c: what was queued
// meanwhile (after last, the replay's end) is sent first, then the bus
// writes to c directly. False when s has ended meanwhile (fell behind during
// the replay, or the bus closed); a stream whose credential lapsed meanwhile
// gets its last event and c closes itself.
func (b *Bus) attach(s *Subscription, c *sseConn, last int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s.ended {
		if s.lapsed != nil { // its credential lapsed during the replay
			c.finish(s.lapsed.frame.SSE)
			return true
		}
		return false
	}
	// Events up to last went out in the replay; one may still come from
	// the listener (Subscribe's overlap), and no Pump is there to skip it.
	s.queued = max(s.queued, last)
	s.out = c
	for {
		select {
		case f := <-s.c:
			if f.ID > last && !c.send(f.SSE) {
				b.leaveLocked(s)
				s.end(true)
				return false
			}
		default:
			s.c = nil
			return true
		}
	}
}

// beatConns sends the heartbeat to every stream the bus writes itself, and
// removes those whose client has gone.
func (b *Bus) beatConns(f *Frame) {
	b.removeWhere(func(s *Subscription) bool { return s.out != nil && !s.out.beat(f.SSE) },
		func(s *Subscription) { s.end(false) })
}
