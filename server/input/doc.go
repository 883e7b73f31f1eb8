// Package input is the one check every request message passes before a
// service sees it, on both transports (docs/decisions.md, "Input at the
// boundary"): every string is valid UTF-8 without NUL, and the field rules
// declared in the .proto files with protovalidate (maximum lengths and
// counts) hold. Refusals are apperr.Invalid naming the field by its JSON path.
//
// The rules are limits only (no required fields), so a part of a request (a
// REST body that is one field of the request, or the path parameters alone)
// is checked on its own with the same call.
package input
