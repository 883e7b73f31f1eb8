package spoke

// MaxSync is how many agents (or capabilities) one sync call may carry: the
// contract's max_items of SyncAgentsRequest.agents and
// SyncCapabilitiesRequest.capabilities, which the gate enforces; the spoke
// pushes its listings in batches of this size (TestMaxSyncIsTheContracts).
const MaxSync = 50
