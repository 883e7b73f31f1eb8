package federation

// ResultPath is where a spoke delivers the result of an execution the hub
// dispatched to it ("{id}" is the hub's execution id).
const ResultPath = "/api/v2/federation/executions/{id}/result"
