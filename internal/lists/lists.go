// Package lists holds the slice helpers the services share.
package lists

// Map answers f of each element of in, in order; never nil, so an empty
// list stays a list where it is rendered.
func Map[T, U any](in []T, f func(T) U) []U {
	out := make([]U, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}
