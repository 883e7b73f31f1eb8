// Package idempotency gives every changing procedure the Idempotency-Key
// header on both transports (docs/decisions.md, "Idempotency"): a key is
// claimed per credential before the request runs, marked applied in the
// transaction of its change (internal/db's transaction hook), and the first
// answer is stored and replayed, with Idempotent-Replayed: true, to retries of
// the same request for 24 hours. The same key with another request is 422; a
// retry while the first still runs is 409. Which procedures take the header is
// the contract's (server/contract, Procedure.Idempotency).
package idempotency
