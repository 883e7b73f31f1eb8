// Package throughtest holds the tests that exercise one area's service through
// the whole server (servertest.New: both transports, the gate, the
// interceptors, the database), gathered here so that they link the server
// once instead of once per area (issue 27, point 10). One file per area, named
// after the package it exercises (settings_test.go for server/settings); each
// area's own unit tests stay beside its code and link none of the server.
//
// The package has no code of its own.
package throughtest
