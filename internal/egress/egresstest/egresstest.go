// Package egresstest holds the host spellings the address rule must refuse,
// for the tests of every URL field the server calls.
package egresstest

// PrivateHosts are URL hosts (as written between "//" and the path) naming
// private, loopback, link-local or otherwise special addresses in every
// spelling a resolver accepts: decimal, hexadecimal, octal, short forms, 0,
// IPv6, IPv4-mapped and NAT64, and the Unicode spellings UTS-46 maps to
// those (what net/http dials for a non-ASCII host).
var PrivateHosts = []string{
	"2130706433",           // 127.0.0.1
	"0x7f000001",           // 127.0.0.1
	"0177.0.0.1",           // 127.0.0.1
	"127.1",                // 127.0.0.1
	"127.000.000.001",      // 127.0.0.1
	"0",                    // 0.0.0.0
	"0.0.0.0",              //
	"2852039166",           // 169.254.169.254, the metadata service
	"0xa9fea9fe",           // 169.254.169.254
	"0251.0376.0251.0376",  // 169.254.169.254
	"10.1",                 // 10.0.0.1
	"0xc0a80001",           // 192.168.0.1
	"[::1]",                //
	"[::]",                 //
	"[::ffff:127.0.0.1]",   // IPv4-mapped loopback
	"[::ffff:a9fe:a9fe]",   // IPv4-mapped metadata service
	"[64:ff9b::a9fe:a9fe]", // NAT64 of the metadata service
	"[fe80::1]",            // link-local
	"[fd00::1]",            // unique local
	"169.254.169.254:8080", // a port changes nothing
	"2130706433:80",        //
	"[::ffff:7f00:1]:443",  //
	"LOCALHOST",            // the name, as before
	"127.0.0.1.",           // the trailing dot of a fully qualified name
	// Unicode that UTS-46 maps to the ASCII forms above.
	"①②⑦.0.0.1",                         // circled digits: 127.0.0.1
	"①②⑦.0.0.1:8443",                    //
	"127。0。0。1",                         // ideographic full stops
	"127｡0｡0｡1",                         // halfwidth ideographic full stops
	"１２７.０.０.１",                         // full-width digits
	"１２７．０．０．１",                         // full-width digits and full stops
	"①⑥⑨.②⑤④.①⑥⑨.②⑤④",                   // the metadata service
	"０ｘ７ｆ０００００１",                        // full-width hexadecimal
	"⓪",                                 // 0.0.0.0
	"ｌｏｃａｌｈｏｓｔ",                         // the name, full-width
	"ⓛⓞⓒⓐⓛⓗⓞⓢⓣ",                         // the name, circled
	"127.0.0.1。",                        // an ideographic trailing dot
	"%EF%BC%91%EF%BC%92%EF%BC%97.0.0.1", // full-width digits, percent-encoded
}

// InvalidHosts are non-ASCII URL hosts UTS-46 cannot map to a name a
// resolver would look up (a joiner out of context, an unassigned code point,
// mixed directions): refused as malformed, 400 naming the field.
var InvalidHosts = []string{
	"a\u200db.example",
	"\u0378.example",
	"a\u05d0.example",
	"⑽.0.0.1",
}
