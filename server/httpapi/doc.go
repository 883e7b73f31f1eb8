// Package httpapi owns what both transports share at the HTTP layer: the two JSON
// renderings (docs/decisions.md "The two JSON renderings"), the REST error body, and the
// middleware every request passes through (request ids, logging, recovery, body
// limits).
package httpapi
