//go:build !unix

package events

// Without unix sockets' non-blocking write(2) every frame goes through the
// writer goroutine (see conn.go), and a hung-up client is noticed when a
// write fails.

func (c *sseConn) writeOnce(uintptr) bool { return true }

func (c *sseConn) tryWrite([]byte) (int, error) { return 0, nil }

func (c *sseConn) peerGone() bool { return false }
