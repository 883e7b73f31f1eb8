package db

import (
	"context"

	"github.com/switchboard-hq/switchboard/ent"
)

// TxHook runs at the end of every successful InTx callback of a request, in
// the same transaction, so what it writes commits exactly when the change
// does. An error rolls the change back.
type TxHook func(ctx context.Context, tx *ent.Tx) error

type txHookKey struct{}

// WithTxHook returns a context whose InTx transactions end with hook. The
// idempotency middleware uses it to mark its claim applied in the
// transaction of the request's change (docs/decisions.md, "Idempotency");
// the value is read here only, never by a service.
func WithTxHook(ctx context.Context, hook TxHook) context.Context {
	return context.WithValue(ctx, txHookKey{}, hook)
}

// hooked wraps fn with the context's hook, if any.
func hooked(ctx context.Context, fn func(*Tx) error) func(*Tx) error {
	hook, ok := ctx.Value(txHookKey{}).(TxHook)
	if !ok || hook == nil {
		return fn
	}
	return func(tx *Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		return hook(ctx, tx.Tx)
	}
}
