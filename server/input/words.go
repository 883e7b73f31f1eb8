package input

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/switchboard-hq/switchboard/server/apperr"
)

// The decoders' refusals are reworded here in the house style of
// docs/decisions.md "Errors": what was wrong, in which field, what is
// accepted; no parser, strconv or protobuf wording reaches a client.

var (
	protoPosition = regexp.MustCompile(`\(line (\d+):(\d+)\)`)
	invalidValue  = regexp.MustCompile(`invalid value for \w+ field (\w+): (.*)$`)
	unknownField  = regexp.MustCompile(`unknown field "([^"]*)"`)
	duplicate     = regexp.MustCompile(`duplicate field "([^"]*)"`)
	queryField    = regexp.MustCompile(`^parsing (?:field|list|map key|map value) "([^"]+)"`)
	queryMany     = regexp.MustCompile(`^too many values for field "([^"]+)"`)
)

// JSONBodyError rewords protojson's refusal err of data, a JSON body for md.
func JSONBodyError(md protoreflect.MessageDescriptor, data []byte, err error) error {
	if err == nil {
		return nil
	}
	if e := syntaxError(data); e != nil {
		return e
	}
	msg := err.Error()
	if m := unknownField.FindStringSubmatch(msg); m != nil {
		return apperr.Invalid("unknown field %q", m[1])
	}
	if m := duplicate.FindStringSubmatch(msg); m != nil {
		return apperr.Invalid("field %q is given twice", m[1])
	}
	path, token := "", ""
	if p := protoPosition.FindStringSubmatch(msg); p != nil {
		path, token = pathAt(data, offsetOf(data, p[1], p[2]))
	}
	if path == "" {
		if m := invalidValue.FindStringSubmatch(msg); m != nil {
			path, token = m[1], m[2]
		}
	}
	if path == "" {
		if b := bytes.TrimSpace(data); len(b) > 0 && b[0] != '{' {
			return apperr.Invalid("body must be a JSON object")
		}
		return apperr.Invalid("body does not match the request")
	}
	fd := fieldAt(md, path)
	if fd == nil {
		return apperr.Invalid("%s has a value of the wrong type", path)
	}
	return apperr.Invalid("%s must be %s", path, accepted(fd, strings.HasSuffix(path, "]"), token))
}

// syntaxError names what makes data invalid JSON, or nil when it is valid.
func syntaxError(data []byte) error {
	var v any
	err := json.Unmarshal(data, &v)
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return nil
	}
	if se.Offset >= int64(len(data)) || strings.Contains(se.Error(), "end of JSON input") {
		return apperr.Invalid("body is not valid JSON: it ends early")
	}
	off := int(se.Offset) - 1
	r, _ := utf8.DecodeRune(data[max(off, 0):])
	return apperr.Invalid("body is not valid JSON: unexpected %s at character %d",
		describe(r), utf8.RuneCount(data[:max(off, 0)])+1)
}

func describe(r rune) string {
	if r == '\'' || !strconv.IsPrint(r) {
		return strconv.QuoteRune(r)
	}
	return "'" + string(r) + "'"
}

// offsetOf turns protojson's line and column (in characters, from 1) into a
// byte offset of data.
func offsetOf(data []byte, line, col string) int {
	l, _ := strconv.Atoi(line)
	c, _ := strconv.Atoi(col)
	off := 0
	for i := 1; i < l; i++ {
		nl := bytes.IndexByte(data[off:], '\n')
		if nl < 0 {
			break
		}
		off += nl + 1
	}
	for i := 1; i < c && off < len(data); i++ {
		_, n := utf8.DecodeRune(data[off:])
		off += n
	}
	return off
}

// pathAt names the JSON value (or key) at byte offset off of data, and its
// text as written (shortened).
func pathAt(data []byte, off int) (string, string) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var path, text string
	walkJSON(dec, func(tok json.Token, at string, key bool) bool {
		end := int(dec.InputOffset())
		if end <= off {
			return false
		}
		if key {
			name, _ := tok.(string)
			path = joinKey(at, name)
		} else {
			path, text = at, shorten(data[off:end])
		}
		return true
	})
	return path, text
}

func shorten(b []byte) string {
	s := strings.TrimSpace(string(b))
	if utf8.RuneCountInString(s) > 40 {
		s = string([]rune(s)[:40]) + "…"
	}
	return s
}

// fieldAt resolves a JSON path (JSON or proto names, [i] for list items) in md.
func fieldAt(md protoreflect.MessageDescriptor, path string) protoreflect.FieldDescriptor {
	var fd protoreflect.FieldDescriptor
	for _, part := range strings.Split(path, ".") {
		if i := strings.IndexByte(part, '['); i >= 0 {
			part = part[:i]
		}
		switch {
		case fd != nil && fd.IsMap():
			fd = fd.MapValue() // part is a key
			md = fd.Message()
			continue
		case md == nil:
			return nil
		}
		next := md.Fields().ByJSONName(part)
		if next == nil {
			next = md.Fields().ByName(protoreflect.Name(part))
		}
		if next == nil {
			return nil
		}
		fd, md = next, next.Message()
	}
	return fd
}

// accepted says what fd takes: one item when item is true (a list's), and
// the range when token is a number its integer kind cannot hold.
func accepted(fd protoreflect.FieldDescriptor, item bool, token string) string {
	switch {
	case fd.IsMap() && !item:
		return "an object"
	case fd.IsList() && !item:
		return "a list of " + plural(fd)
	}
	if lo, hi, ok := intRange(fd.Kind()); ok {
		if f, err := strconv.ParseFloat(strings.Trim(token, `"`), 64); err == nil && (f < lo || f > hi) {
			return fmt.Sprintf("a whole number from %.0f to %.0f", lo, hi)
		}
		return "a whole number"
	}
	switch fd.Kind() {
	case protoreflect.StringKind:
		return "a string"
	case protoreflect.BoolKind:
		return "true or false"
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return "a number"
	case protoreflect.BytesKind:
		return "base64 text"
	case protoreflect.EnumKind:
		return "one of " + enumNames(fd.Enum())
	}
	if fd.Message() != nil && fd.Message().FullName() == "google.protobuf.Timestamp" {
		return "a time such as 2026-01-02T15:04:05Z (RFC 3339)"
	}
	return "an object"
}

func plural(fd protoreflect.FieldDescriptor) string {
	if _, _, ok := intRange(fd.Kind()); ok {
		return "whole numbers"
	}
	switch fd.Kind() {
	case protoreflect.StringKind:
		return "strings"
	case protoreflect.BoolKind:
		return "true or false values"
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return "numbers"
	}
	return "objects"
}

func intRange(k protoreflect.Kind) (float64, float64, bool) {
	switch k {
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return math.MinInt32, math.MaxInt32, true
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return 0, math.MaxUint32, true
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return math.MinInt64, math.MaxInt64, true
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return 0, math.MaxUint64, true
	}
	return 0, 0, false
}

func enumNames(ed protoreflect.EnumDescriptor) string {
	var names []string
	for i := range ed.Values().Len() {
		names = append(names, string(ed.Values().Get(i).Name()))
	}
	return strings.Join(names, ", ")
}

// QueryError rewords grpc-gateway's refusal of a query parameter of md.
func QueryError(md protoreflect.MessageDescriptor, err error) error {
	msg := err.Error()
	if m := queryMany.FindStringSubmatch(msg); m != nil {
		return apperr.Invalid("%s takes one value", jsonName(md, m[1]))
	}
	m := queryField.FindStringSubmatch(msg)
	if m == nil {
		return apperr.Invalid("a query parameter is not valid")
	}
	fd := fieldAt(md, m[1])
	if fd == nil {
		return apperr.Invalid("%s is not valid", m[1])
	}
	token := ""
	if errors.Is(err, strconv.ErrRange) {
		token = "1e300" // any number past every integer kind's range
	}
	return apperr.Invalid("%s must be %s", fd.JSONName(), accepted(fd, fd.IsList(), token))
}

func jsonName(md protoreflect.MessageDescriptor, name string) string {
	if fd := fieldAt(md, name); fd != nil {
		return fd.JSONName()
	}
	return name
}
