// Package auth owns credentials: password hashes, API keys and session tokens,
// and resolving the credentials a request presents into a Principal. Deciding
// whether a Principal may call a procedure is the gate's job (server/gate).
package auth
