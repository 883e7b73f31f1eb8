// Package httpapi is the HTTP layer both transports share: the REST error body
// and the error writers, the Connect error interceptor, and the middleware
// every request passes through (request ids, logging, recovery, body limits).
// The renderings it serves with are server/render's; domain packages never
// import it (server/deps_test.go).
package httpapi
