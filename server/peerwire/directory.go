package peerwire

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// remember is how long what a peer's document said holds before it is
// read again: a peer that upgrades is spoken to in its new protocol soon
// after, without a read on every call.
const remember = 10 * time.Minute

// maxDocument caps the document a directory reads.
const maxDocument = 64 << 10

// Directory knows what each peer origin speaks: learned from a verification
// answer read elsewhere (Learn) or its document fetched on a miss, and
// remembered per origin in this process for a while. It is the one place
// the protocol of a call is chosen; each peer kind (the operator network,
// the hub's spokes) holds one over its own outbound client.
type Directory struct {
	client *http.Client
	now    func() time.Time
	mu     sync.Mutex
	known  map[string]learned
}

type learned struct {
	protocol Protocol
	at       time.Time
}

// NewDirectory reads documents with client (its timeout and address rule
// are the caller's) on the injected clock now.
func NewDirectory(client *http.Client, now func() time.Time) *Directory {
	return &Directory{client: client, now: now, known: map[string]learned{}}
}

// Learn remembers what origin's document listed, from an answer the caller
// read itself (a handshake's verification).
func (d *Directory) Learn(origin string, protocols []string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.known[key(origin)] = learned{protocol: Choose(protocols), at: d.now()}
}

// Of is the protocol to call origin with: what it is known to speak, else
// what its document lists, read now. A document that cannot be read changes
// nothing known: what was learned last (REST, which every peer serves, when
// nothing was) holds for another period, so a peer that is down is not asked
// for its document before every call to it (each would wait for the read,
// and knock on a door the breaker keeps shut).
func (d *Directory) Of(ctx context.Context, origin string) Protocol {
	if p, ok := d.cached(origin); ok {
		return p
	}
	doc, err := d.fetch(ctx, origin)
	if err != nil {
		d.mu.Lock()
		defer d.mu.Unlock()
		l := d.known[key(origin)]
		if l.protocol == "" {
			l.protocol = REST
		}
		l.at = d.now()
		d.known[key(origin)] = l
		return l.protocol
	}
	d.Learn(origin, doc.Protocols)
	return Choose(doc.Protocols)
}

// Known is the protocol to call origin with without reading anything: for a
// writer inside a transaction (an outbox row), which must not wait on a
// peer. What was learned last holds however old (older news beats none); an
// origin this process never heard from is REST.
func (d *Directory) Known(origin string) Protocol {
	d.mu.Lock()
	defer d.mu.Unlock()
	if l, ok := d.known[key(origin)]; ok {
		return l.protocol
	}
	return REST
}

// cached is what origin is known to speak, unless it is older than remember.
func (d *Directory) cached(origin string) (Protocol, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	l, ok := d.known[key(origin)]
	if !ok || d.now().Sub(l.at) > remember {
		return "", false
	}
	return l.protocol, true
}

// fetch reads origin's document: GET WellKnownPath without a nonce.
func (d *Directory) fetch(ctx context.Context, origin string) (Document, error) {
	var doc Document
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, key(origin)+WellKnownPath, nil)
	if err != nil {
		return doc, err
	}
	req.Header.Set("Accept", "application/json")
	res, err := d.client.Do(req)
	if err != nil {
		return doc, err
	}
	defer func() { _ = res.Body.Close() }()
	if res.StatusCode != http.StatusOK {
		return doc, &statusError{res.StatusCode}
	}
	// Unknown fields are ignored (RULINGS: REST clients of peers ignore them).
	err = json.NewDecoder(io.LimitReader(res.Body, maxDocument)).Decode(&doc)
	return doc, err
}

type statusError struct{ status int }

func (e *statusError) Error() string { return "the document answered " + http.StatusText(e.status) }

// key is an origin as the directory files it: without a trailing slash.
func key(origin string) string { return strings.TrimSuffix(origin, "/") }
