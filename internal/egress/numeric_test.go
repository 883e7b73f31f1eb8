package egress

import (
	"net/netip"
	"testing"
)

// RULINGS "Input at the boundary": every spelling a resolver accepts
// (inet_aton's decimal, octal, hexadecimal and short forms) is read as the
// address it names.
func TestParseNumericHost(t *testing.T) {
	for _, tc := range []struct {
		host string
		want string // "" when host is not a number
	}{
		{"2130706433", "127.0.0.1"},
		{"0x7f000001", "127.0.0.1"},
		{"0X7F000001", "127.0.0.1"},
		{"0177.0.0.1", "127.0.0.1"},
		{"0177.0.0.01", "127.0.0.1"},
		{"127.000.000.001", "127.0.0.1"},
		{"127.1", "127.0.0.1"},
		{"127.0.1", "127.0.0.1"},
		{"0x7f.1", "127.0.0.1"},
		{"0x7f.0.0.0x1", "127.0.0.1"},
		{"0", "0.0.0.0"},
		{"00", "0.0.0.0"},
		{"0x", "0.0.0.0"},
		{"0x0", "0.0.0.0"},
		{"2852039166", "169.254.169.254"},
		{"0xa9fea9fe", "169.254.169.254"},
		{"0251.0376.0251.0376", "169.254.169.254"},
		{"169.254.43518", "169.254.169.254"},
		{"10.1", "10.0.0.1"},
		{"012.1", "10.0.0.1"},
		{"192.168.257", "192.168.1.1"},
		{"4294967295", "255.255.255.255"},
		{"93.184.215.14", "93.184.215.14"},
		{"1572394766", "93.184.215.14"},
		// Not numbers: names, too many parts, overflow, bad digits.
		{"", ""},
		{"example.com", ""},
		{"1.2.3.4.5", ""},
		{"4294967296", ""},
		{"256.1.1.1", ""},
		{"1.256.1.1", ""},
		{"1.2.65536", ""},
		{"1.16777216", ""},
		{"08", ""},
		{"0x1g", ""},
		{"1..1", ""},
		{"1.", ""},
		{".1", ""},
		{"+1", ""},
		{"-1", ""},
		{"1_0", ""},
		{"0x_1", ""},
		{"::1", ""},
		{"1e3", ""},
	} {
		got, ok := parseNumericHost(tc.host)
		switch {
		case tc.want == "" && ok:
			t.Errorf("parseNumericHost(%q) = %s, want no address", tc.host, got)
		case tc.want != "" && (!ok || got != netip.MustParseAddr(tc.want)):
			t.Errorf("parseNumericHost(%q) = %s, %v, want %s", tc.host, got, ok, tc.want)
		}
	}
}

func FuzzParseNumericHost(f *testing.F) {
	for _, s := range []string{"2130706433", "0x7f.1", "0177.0.0.1", "1.2.3.4", "0x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, host string) {
		a, ok := parseNumericHost(host)
		if !ok {
			return
		}
		// Anything read as an address is IPv4, and the canonical form of an
		// address reads back as itself.
		if !a.Is4() {
			t.Fatalf("%q read as %s", host, a)
		}
		if b, ok := parseNumericHost(a.String()); !ok || b != a {
			t.Fatalf("%q: %s reads back as %s, %v", host, a, b, ok)
		}
	})
}
