package network

import (
	"strings"
)

// AckPath is the sender's route for relay-acks.
const AckPath = "/api/federation/relay-ack"

// AckInstance is the outbox row's instance id of a connection: the
// dispatcher asks Credential for its header at each attempt.
const AckInstance = "network-connection:"

// Owns reports whether an outbox instance id is the network's.
func Owns(instanceID string) bool { return strings.HasPrefix(instanceID, AckInstance) }
