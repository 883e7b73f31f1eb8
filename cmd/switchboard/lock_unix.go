//go:build unix

package main

import (
	"errors"
	"os"
	"syscall"
)

// flock takes f's advisory lock without waiting: shared (a server holding
// the database) or exclusive (a restore replacing it). errHeld when another
// process holds it the other way. The kernel drops it when the process ends,
// however it ends.
func flock(f *os.File, exclusive bool) error {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return errHeld
	}
	return err
}
