// Package rules holds the operator network's pure rules (issue 15; RULINGS
// "The operator network: connections and relays"): what a relay is and how
// its state moves, which ambient relays the recipient's preferences hold back
// and until when, how route_task ranks candidates and advises a strategy, and
// how serendipity_matches pairs people. Nothing here reads a database or a
// request: the services of server/network decide with these functions and
// apply the answer in one transaction, so every rule is pinned by a table
// test here rather than end to end.
package rules

// Quiet hours name an IANA time zone (time.LoadLocation); the binary carries
// the zone database so a host without /usr/share/zoneinfo (a scratch image)
// still knows them.
import _ "time/tzdata"
