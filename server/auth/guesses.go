package auth

import "context"

// Guesses limits the attempts at a secret that can be guessed and is no
// login's password: a capability pack's access password, a store listing's
// unlock (RULINGS "Security details (2026-11-28)"). Guess counts one attempt
// at the secret by the client of ctx and must run before the secret is
// compared; over the client's or the secret's limit it answers a rate-limit
// error (apperr), whether the guess would have been right or not. server.New
// gives the services the gate's (gate.Gate.Guess).
type Guesses interface {
	Guess(ctx context.Context, secret string) error
}

type clientKey struct{}

// WithClient stores the address the gate counts the request's client by.
func WithClient(ctx context.Context, addr string) context.Context {
	return context.WithValue(ctx, clientKey{}, addr)
}

// ClientFrom returns the address WithClient stored; "" outside a request.
func ClientFrom(ctx context.Context) string {
	addr, _ := ctx.Value(clientKey{}).(string)
	return addr
}
