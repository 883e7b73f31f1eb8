package federation

func Ptr(s string) *string { return &s }

func Deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
