// Package guard is the federation moderation guard (document 2, "Errors":
// "Federation moderation (guard)"; RULINGS "Federation: instances and the
// platform", "Guard:" and "Audit:"). Inspect runs the six checks on an
// inbound federation request body before any decoding; Preview writes the
// audit log's payload preview with tokens redacted and flagged personal data
// masked. The package is pure: no storage, no clock, safe for concurrent use.
package guard

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/switchboard-hq/switchboard/internal/vocab"
)

// MaxBody is the largest body the guard lets through: "over 1 MB" means more
// than 1 MiB (1,048,576 bytes) of raw body, measured before decoding. A
// caller reads at most MaxBody+1 bytes and passes what it read.
const MaxBody = 1 << 20

// Level is a threat level, ordered so that the highest wins.
type Level uint8

// The threat levels of FederationAuditLog.threatLevel.
const (
	LevelNone Level = iota
	LevelLow
	LevelMedium
	LevelHigh
	LevelCritical
)

// levelNames is the threat_level vocabulary, whose order is the levels'.
var levelNames = vocab.Values("threat_level")

// String is the wire value (`none` … `critical`).
func (l Level) String() string {
	if int(l) < len(levelNames) {
		return levelNames[l]
	}
	return fmt.Sprintf("level(%d)", uint8(l))
}

// MarshalText renders the wire value, so a Level is a JSON string.
func (l Level) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// Score is the moderation score of a check that found something at this
// level: one fixed score per level (none 0, low 0.25, medium 0.5, high 0.75,
// critical 1), so the overall score orders exactly as the levels do.
func (l Level) Score() float64 { return float64(min(l, LevelCritical)) / float64(LevelCritical) }

// Check is one check's result.
type Check struct {
	Name  string   // prompt_injection, personal_data, script_injection, malicious_url, base64_payload, payload_size
	Level Level    // LevelNone when it found nothing
	Score float64  // Level.Score()
	Flags []string // what it found, sorted
}

// Span is personal data found in free text, for masking in the preview.
type Span struct {
	Kind  string // card_number, id_number, phone, email
	Field string // where, for people: a JSON path of plain keys ("payload.notes[2]"), or "body"
	// Unit is the string's position among the body's strings (keys and values,
	// in document order) when the body was read as JSON; 0 for a text body.
	Unit       int
	Start, End int // byte offsets in that string (the decoded JSON string, or the raw body)
}

// Verdict is the guard's answer for one request body.
type Verdict struct {
	Level        Level
	Score        float64  // the highest check score
	Flags        []string // every check's flags, sorted and unique
	Blocked      bool     // answer 403 with BlockReason; the handler never runs
	BlockReason  string   // for people: which blocking checks fired and where
	PersonalData []Span   // what Preview masks
	Checks       []Check  // all six, in the order of document 2's table
	JSON         bool     // the body was read as JSON (Span.Unit counts its strings)
}

// Outcome is the audit row's status for an inbound call the guard saw:
// `blocked`, `flagged` (something found, request proceeds) or `ok`.
func (v Verdict) Outcome() string {
	switch {
	case v.Blocked:
		return string(vocab.FederationAuditStatusBlocked)
	case len(v.Flags) > 0:
		return string(vocab.FederationAuditStatusFlagged)
	}
	return string(vocab.FederationAuditStatusOK)
}

// ThreatFlags is FederationAuditLog.threatFlags: the flags, comma-separated.
func (v Verdict) ThreatFlags() string { return strings.Join(v.Flags, ",") }

// The six checks, in the order of document 2's table.
type checkID uint8

const (
	checkPromptInjection checkID = iota
	checkPersonalData
	checkScriptInjection
	checkMaliciousURL
	checkBase64
	checkPayloadSize
	numChecks
)

var checkInfo = [numChecks]struct {
	name   string
	level  Level
	blocks bool
	reason string
}{
	checkPromptInjection: {"prompt_injection", LevelCritical, true, "prompt injection pattern"},
	checkPersonalData:    {"personal_data", LevelHigh, false, ""},
	checkScriptInjection: {"script_injection", LevelCritical, true, "script injection"},
	checkMaliciousURL:    {"malicious_url", LevelMedium, false, ""},
	checkBase64:          {"base64_payload", LevelLow, false, ""},
	checkPayloadSize:     {"payload_size", LevelHigh, true, ""},
}

// A flag is one finding's short name; each belongs to one check.
type flag uint8

const (
	flagPromptInjection flag = iota
	flagScriptTag
	flagScriptURL
	flagEventHandler
	flagEmbeddedFrame
	flagCardNumber
	flagIDNumber
	flagPhone
	flagEmail
	flagURLIPHost
	flagURLCredentials
	flagURLData
	flagURLFile
	flagURLShortener
	flagURLIDNHost
	flagURLEncodedHost
	flagBase64
	flagTooLarge
	numFlags
)

var flagInfo = [numFlags]struct {
	name  string
	check checkID
}{
	flagPromptInjection: {"prompt_injection", checkPromptInjection},
	flagScriptTag:       {"script_tag", checkScriptInjection},
	flagScriptURL:       {"script_url", checkScriptInjection},
	flagEventHandler:    {"event_handler", checkScriptInjection},
	flagEmbeddedFrame:   {"embedded_frame", checkScriptInjection},
	flagCardNumber:      {"pii_card_number", checkPersonalData},
	flagIDNumber:        {"pii_id_number", checkPersonalData},
	flagPhone:           {"pii_phone", checkPersonalData},
	flagEmail:           {"pii_email", checkPersonalData},
	flagURLIPHost:       {"url_ip_host", checkMaliciousURL},
	flagURLCredentials:  {"url_credentials", checkMaliciousURL},
	flagURLData:         {"url_data", checkMaliciousURL},
	flagURLFile:         {"url_file", checkMaliciousURL},
	flagURLShortener:    {"url_shortener", checkMaliciousURL},
	flagURLIDNHost:      {"url_idn_host", checkMaliciousURL},
	flagURLEncodedHost:  {"url_encoded_host", checkMaliciousURL},
	flagBase64:          {"base64_payload", checkBase64},
	flagTooLarge:        {"payload_too_large", checkPayloadSize},
}

// findings collects what the checks saw while walking a body.
type findings struct {
	flags uint32
	where [numChecks]string // the first field a blocking check fired in
	spans []Span
}

func (f *findings) add(fl flag, where func() string) {
	if f.flags&(1<<fl) != 0 {
		return
	}
	f.flags |= 1 << fl
	c := flagInfo[fl].check
	if checkInfo[c].blocks && f.where[c] == "" {
		f.where[c] = where()
	}
}

// Inspect runs the six checks on a raw request body. A body over MaxBody is
// blocked on its size alone (the content checks do not run: the request is
// refused anyway, and reading a huge body would cost what the limit saves).
// A body that parses as one JSON value is walked string by string: every key
// and value goes through the injection and script checks, free-text values
// (not under AddressingFields) through the personal-data, URL and base64
// checks. Anything else (binary protobuf, forms, broken JSON) is inspected as
// one text. contentType only spares a JSON attempt on protobuf bodies.
func Inspect(raw []byte, contentType string) Verdict {
	f, v := inspectBody(raw, contentType)
	return f.verdict(v)
}

// InspectRequest is Inspect of the body and of the query's names and values
// (RULINGS "Details for the house issue": the guard reads query values too),
// each value free text named "query.<name>". Only the body's personal data
// is kept for masking: the preview shows the body, not the query.
func InspectRequest(raw []byte, contentType string, query url.Values) Verdict {
	f, v := inspectBody(raw, contentType)
	spans := f.spans
	names := make([]string, 0, len(query))
	for k := range query {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		where := func() string { return "query." + k }
		inspectString(&f, k, true, false, 0, where)
		for _, val := range query[k] {
			inspectString(&f, val, false, true, 0, where)
		}
	}
	f.spans = spans
	return f.verdict(v)
}

func inspectBody(raw []byte, contentType string) (findings, Verdict) {
	var f findings
	v := Verdict{}
	switch {
	case len(raw) > MaxBody:
		f.flags |= 1 << flagTooLarge
		f.where[checkPayloadSize] = fmt.Sprintf("request body is %d bytes, over the 1 MB limit (%d bytes)", len(raw), MaxBody)
	case !isProto(contentType) && looksJSON(raw) && inspectJSON(raw, &f):
		v.JSON = true
	default:
		f = findings{}
		s := string(raw)
		inspectString(&f, s, false, true, 0, func() string { return "body" })
	}
	return f, v
}

func (f *findings) verdict(v Verdict) Verdict {
	v.Checks = make([]Check, numChecks)
	for c := range numChecks {
		v.Checks[c] = Check{Name: checkInfo[c].name}
	}
	var reasons []string
	for fl := range numFlags {
		if f.flags&(1<<fl) == 0 {
			continue
		}
		name, c := flagInfo[fl].name, flagInfo[fl].check
		ch := &v.Checks[c]
		ch.Flags = append(ch.Flags, name)
		ch.Level, ch.Score = checkInfo[c].level, checkInfo[c].level.Score()
		v.Flags = append(v.Flags, name)
	}
	for c, ch := range v.Checks {
		slices.Sort(ch.Flags)
		v.Level = max(v.Level, ch.Level)
		v.Score = max(v.Score, ch.Score)
		if ch.Level != LevelNone && (checkInfo[c].blocks || ch.Level == LevelCritical) {
			v.Blocked = true
			if c == int(checkPayloadSize) {
				reasons = append(reasons, f.where[c])
			} else {
				reasons = append(reasons, fmt.Sprintf("%s (%s) in %s", checkInfo[c].reason, strings.Join(ch.Flags, ", "), f.where[c]))
			}
		}
	}
	slices.Sort(v.Flags)
	v.Flags = slices.Compact(v.Flags)
	v.BlockReason = strings.Join(reasons, "; ")
	v.PersonalData = f.spans
	return v
}

func isProto(contentType string) bool {
	ct := strings.ToLower(contentType)
	return strings.Contains(ct, "proto") || strings.HasPrefix(ct, "application/grpc")
}

// looksJSON: an object or array, the only top-level forms federation bodies take.
func looksJSON(raw []byte) bool {
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '{', '[':
			return true
		}
		return false
	}
	return false
}

// inspectJSON walks every string of one JSON value; false when raw is not
// exactly one JSON value (or nests deeper than maxDepth), and f is then left
// for the caller to reset.
func inspectJSON(raw []byte, f *findings) bool {
	w := newWalker(raw)
	for {
		tok, err := w.next()
		if err != nil {
			return w.done(err)
		}
		if tok.str == nil {
			continue
		}
		free := !tok.key && !w.addressing()
		inspectString(f, *tok.str, tok.key, free, tok.unit, w.field)
	}
}

// inspectString runs the checks that apply to one string: injection and
// script on all, the rest on free text only.
func inspectString(f *findings, s string, key, free bool, unit int, where func() string) {
	lower := asciiLower(s)
	if promptInjection(s, lower) {
		f.add(flagPromptInjection, where)
	}
	scriptInjection(s, lower, func(fl flag) { f.add(fl, where) })
	if !free || key {
		return
	}
	personalData(s, func(kind string, start, end int) {
		f.add(kindFlag[kind], where)
		f.spans = append(f.spans, Span{Kind: kind, Field: where(), Unit: unit, Start: start, End: end})
	})
	maliciousURLs(s, lower, func(fl flag) { f.add(fl, where) })
	if longBase64(s) {
		f.add(flagBase64, where)
	}
}

var kindFlag = map[string]flag{
	kindCard:  flagCardNumber,
	kindID:    flagIDNumber,
	kindPhone: flagPhone,
	kindEmail: flagEmail,
}
