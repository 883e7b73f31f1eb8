package network

func OrEmpty(v []string) []string {
	if v == nil {
		return []string{}
	}
	return v
}
