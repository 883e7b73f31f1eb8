// Package network is the operator network's connections (RULINGS "The
// operator network: connections and relays"): a user here joined to a user on
// another instance, without a hub. It owns the admin's switch (--federation,
// the origin allowlist), the handshake (the requester issues a federation
// token, sbf_…, and the recipient verifies the requester's origin through
// /.well-known/switchboard-instance before recording anything), accept,
// decline, removal and rotation told to the peer, trust levels, and the relay
// preferences relays read later. NetworkService is the operator's side
// (session; the key's list of active connections); NetworkPeerService is what
// peers call with the token this side issued. Tokens follow federation's
// rules (server/federation tokens.go): the issued one is stored hashed, the
// peer's sealed with the instance key.
//
// Relays (issue 15 points 2–3) ride the connections: NetworkRelayService is
// the operator's (send, list, get, release or discard a quarantined one),
// NetworkRelayPeerService the peers' (the relay itself, idempotent on the
// sender's relay id, and the relay-ack). A request relay becomes a pending
// queue item; its moves come back through the queue's hooks and go to the
// sender as acks through the outbox, in the move's own transaction.
//
// Every call to a peer, direct or through the outbox, is in the protocol the
// peer speaks (RULINGS "How one instance calls another"): Core's
// peerwire.Directory learns it at the handshake's verification (or reads the
// peer's document) and hands out the client; Connect to a Switchboard, the
// documented REST routes to a peer that lists only rest or nothing.
//
// This package is what the operator network's services share: Core (the
// database, the clock, the instance key, the peers' outbound client and the
// outbox), the switch, the relay intake and the conversions. The services
// are packages by who calls: operator (the operator's connections and
// exchange), peers (the untrusted surface other instances call) and relays
// (the operator's relays and their state), each holding the one Core and
// importing this package, never each other.
package network
