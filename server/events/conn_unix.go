//go:build unix

package events

import (
	"errors"
	"syscall"
)

// writeOnce is one write(2) on the non-blocking socket. It returns true so
// that RawConn.Write never waits for the socket to become writable.
func (c *sseConn) writeOnce(fd uintptr) bool {
	c.n, c.errno = syscall.Write(int(fd), c.p)
	return true
}

// tryWrite writes what the socket takes now without blocking: n < len(p) and
// no error when its buffer is full.
func (c *sseConn) tryWrite(p []byte) (int, error) {
	if c.raw == nil {
		return 0, nil
	}
	c.p = p
	err := c.raw.Write(c.rawWrite)
	n, errno := c.n, c.errno
	c.p, c.errno = nil, nil
	switch {
	case err != nil:
		return 0, err
	case errors.Is(errno, syscall.EAGAIN) || errors.Is(errno, syscall.EINTR):
		return 0, nil
	case errno != nil:
		return 0, errno
	}
	return n, nil
}

// peerGone reads without blocking: end of file or an error means the client
// has hung up. (Anything it sent is of no use: the connection serves this
// one response.)
func (c *sseConn) peerGone() bool {
	if c.raw == nil {
		return false
	}
	var (
		buf   [64]byte
		n     int
		errno error
	)
	if err := c.raw.Read(func(fd uintptr) bool {
		n, errno = syscall.Read(int(fd), buf[:])
		return true
	}); err != nil {
		return true
	}
	if errors.Is(errno, syscall.EAGAIN) || errors.Is(errno, syscall.EINTR) {
		return false
	}
	return errno != nil || n == 0
}
