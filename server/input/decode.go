package input

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/switchboard-hq/switchboard/server/apperr"
)

// BinaryError rewords a binary unmarshal failure of data into md: invalid
// UTF-8 in a string (protobuf-go's own error names no field) as the refusal
// naming the field, any other as a body that is not a protobuf message.
func BinaryError(md protoreflect.MessageDescriptor, data []byte, _ error) error {
	if path, ok := badWirePath(md, data, ""); ok {
		return NotText(path)
	}
	return apperr.Invalid("body is not a valid protobuf message")
}

// badWirePath finds the first string field holding invalid UTF-8 in the wire
// bytes b of a message md.
func badWirePath(md protoreflect.MessageDescriptor, b []byte, prefix string) (string, bool) {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return "", false
		}
		b = b[n:]
		if typ != protowire.BytesType {
			if n = protowire.ConsumeFieldValue(num, typ, b); n < 0 {
				return "", false
			}
			b = b[n:]
			continue
		}
		v, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return "", false
		}
		b = b[n:]
		fd := md.Fields().ByNumber(num)
		if fd == nil {
			continue
		}
		path := joinKey(prefix, fd.JSONName())
		switch {
		case fd.Kind() == protoreflect.StringKind && !utf8.Valid(v):
			return path, true
		case fd.Message() != nil:
			if p, ok := badWirePath(fd.Message(), v, path); ok {
				return p, true
			}
		}
	}
	return "", false
}

// JSONError names the field of a JSON body that is not valid UTF-8 (the JSON
// decoder's own error gives only a position); nil when data is valid UTF-8.
func JSONError(data []byte) error {
	if utf8.Valid(data) {
		return nil
	}
	// encoding/json turns each invalid byte into U+FFFD; a body that had no
	// U+FFFD of its own shows where the bad bytes were.
	if bytes.Contains(data, []byte("\uFFFD")) || bytes.Contains(bytes.ToLower(data), []byte(`\ufffd`)) {
		return NotText("the body")
	}
	path, ok := badJSONPath(data)
	if !ok {
		return NotText("the body")
	}
	return NotText(path)
}

// badJSONPath answers the path of the first key or string of data holding
// U+FFFD.
func badJSONPath(data []byte) (string, bool) {
	var path string
	found := walkJSON(json.NewDecoder(bytes.NewReader(data)), func(tok json.Token, at string, key bool) bool {
		v, _ := tok.(string)
		if !strings.ContainsRune(v, utf8.RuneError) {
			return false
		}
		path = at
		if key {
			path = joinKey(at, "key")
		}
		return true
	})
	return path, found
}

// walkJSON reads dec's tokens keeping the path of each, and calls visit for
// every key (at is then the path of its object) and every value (a scalar,
// or the opening of an object or array; at is its path) until visit answers
// true. It answers whether visit stopped it.
func walkJSON(dec *json.Decoder, visit func(tok json.Token, at string, key bool) bool) bool {
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		top := last(stack)
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			endValue(last(stack))
			continue
		}
		if top != nil && !top.array && !top.haveKey {
			key, _ := tok.(string)
			top.key, top.haveKey = key, true
			if visit(tok, top.prefix, true) {
				return true
			}
			continue
		}
		if top != nil && top.array {
			top.index++
		}
		here := top.path()
		if visit(tok, here, false) {
			return true
		}
		if d, ok := tok.(json.Delim); ok {
			stack = append(stack, &frame{array: d == '[', index: -1, prefix: here})
			continue
		}
		endValue(top)
	}
}

// frame is one open object or array.
type frame struct {
	array   bool
	index   int
	key     string
	haveKey bool
	prefix  string
}

func last(s []*frame) *frame {
	if len(s) == 0 {
		return nil
	}
	return s[len(s)-1]
}

// endValue ends a value in an object: the next token is a key.
func endValue(f *frame) {
	if f != nil && !f.array {
		f.haveKey = false
	}
}

// path names the value being read in f.
func (f *frame) path() string {
	switch {
	case f == nil:
		return ""
	case f.array:
		return fmt.Sprintf("%s[%d]", f.prefix, f.index)
	}
	return joinKey(f.prefix, f.key)
}

func joinKey(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}
