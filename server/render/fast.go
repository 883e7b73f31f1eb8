package render

import (
	"fmt"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

// What the REST walk asks of every message and field it renders, answered
// once per descriptor: reading an option's extension decodes the options
// each time it is asked.

var omitAbsentOf, nullWhenEmptyOf sync.Map // descriptor → bool

func restOmitAbsent(md protoreflect.MessageDescriptor) bool {
	return once(&omitAbsentOf, md, switchboardv1.E_RestOmitAbsent)
}

func restNullWhenEmpty(fd protoreflect.FieldDescriptor) bool {
	return once(&nullWhenEmptyOf, fd, switchboardv1.E_RestNullWhenEmpty)
}

// once answers d's boolean option x, read from d's options the first time
// and from cache after.
func once(cache *sync.Map, d protoreflect.Descriptor, x protoreflect.ExtensionType) bool {
	if v, ok := cache.Load(d); ok {
		return v.(bool)
	}
	v := proto.GetExtension(d.Options(), x).(bool)
	cache.Store(d, v)
	return v
}

const timestampName protoreflect.FullName = "google.protobuf.Timestamp"

// The range protojson accepts: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z.
const (
	minTimestampSeconds = -62135596800
	maxTimestampSeconds = 253402300799
)

// appendTimestamp writes a google.protobuf.Timestamp as protojson does: RFC
// 3339 in UTC with 0, 3, 6 or 9 fractional digits, and the same refusals out
// of range (TestTimestampsAsProtojson compares the two).
func appendTimestamp(b []byte, m protoreflect.Message) ([]byte, error) {
	fields := m.Descriptor().Fields()
	secs, nanos := m.Get(fields.ByNumber(1)).Int(), m.Get(fields.ByNumber(2)).Int()
	if secs < minTimestampSeconds || secs > maxTimestampSeconds {
		return nil, fmt.Errorf("%s: seconds out of range %v", timestampName, secs)
	}
	if nanos < 0 || nanos > 999_999_999 {
		return nil, fmt.Errorf("%s: nanos out of range %v", timestampName, nanos)
	}
	b = append(b, '"')
	b = time.Unix(secs, nanos).UTC().AppendFormat(b, "2006-01-02T15:04:05.000000000")
	// Drop trailing groups of three zeros, and the point when all nine are.
	for range 2 {
		if n := len(b); string(b[n-3:]) == "000" {
			b = b[:n-3]
		}
	}
	if n := len(b); string(b[n-4:]) == ".000" {
		b = b[:n-4]
	}
	return append(b, 'Z', '"'), nil
}
