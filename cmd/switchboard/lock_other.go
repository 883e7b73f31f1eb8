//go:build !unix

package main

import "os"

// flock is a no-op where flock(2) does not exist: restore cannot tell that a
// server holds the database there (README, "Backups").
func flock(*os.File, bool) error { return nil }
