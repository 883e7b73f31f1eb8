package egress

import (
	"net/netip"
	"strconv"
	"strings"
)

// parseNumericHost reads a host the way inet_aton(3), and so most resolvers
// and HTTP clients, read a number: one to four dot-separated parts, each
// decimal, octal (leading 0) or hexadecimal (leading 0x), the last part
// filling the bytes the others leave ("127.1" is 127.0.0.1, "2130706433"
// and "0x7f000001" are too, "0" is 0.0.0.0). net/netip accepts only the
// four-part decimal form, so a numeric spelling of a private address would
// otherwise be taken for a name. ok is false when host is not such a number.
func parseNumericHost(host string) (addr netip.Addr, ok bool) {
	parts := strings.Split(host, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		v, ok := parsePart(p)
		if !ok {
			return netip.Addr{}, false
		}
		vals[i] = v
	}
	// Every part but the last is one byte; the last fills the rest.
	last := len(vals) - 1
	if vals[last] >= 1<<(8*(4-last)) {
		return netip.Addr{}, false
	}
	n := vals[last]
	for i := range last {
		if vals[i] > 0xff {
			return netip.Addr{}, false
		}
		n |= vals[i] << (8 * (3 - i))
	}
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true
}

// parsePart reads one part: 0x… hexadecimal, 0… octal, else decimal (no sign,
// no underscores). Values past 32 bits are refused here rather than wrapped.
func parsePart(p string) (uint64, bool) {
	base, digits := 10, p
	switch {
	case strings.HasPrefix(p, "0x") || strings.HasPrefix(p, "0X"):
		base, digits = 16, p[2:]
	case len(p) > 1 && p[0] == '0':
		base, digits = 8, p[1:]
	}
	if digits == "" {
		// "0x" alone is zero to inet_aton; anything else empty is no number.
		return 0, base == 16
	}
	v, err := strconv.ParseUint(digits, base, 32)
	if err != nil {
		return 0, false
	}
	return v, true
}
