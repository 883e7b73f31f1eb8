// Package render owns the two JSON renderings of the contract's messages
// (docs/decisions.md "The two JSON renderings") and Connect's binary codec:
// bytes to messages and back, with the house wording of refusals. It knows no
// HTTP, so the domain may render a message (an MCP tool's structured content,
// a stored conversation) the way the REST mirror does without importing the
// transport.
package render
