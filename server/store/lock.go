package store

// LockKey is the serialization key of one listing, for the execution engine
// (server/store/engine), whose lock, queue and counters move under the same
// key as the listing's owner changes.
func LockKey(agentID string) string { return lockKey(agentID) }
