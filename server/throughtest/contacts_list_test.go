package throughtest

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"testing"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// Document 1, Contacts: search matches name, email or company and tag matches
// any tag, both as case-sensitive substrings, on SQLite and PostgreSQL alike
// (SQLite's LIKE would fold ASCII case). LIKE wildcards are plain characters.
func TestListFiltersAreCaseSensitiveSubstrings(t *testing.T) {
	t.Parallel()
	f := newContactsFixture(t)
	for _, c := range []map[string]any{
		{"name": "Ann Lee", "email": "lee@example.com", "company": "Initech", "tags": []string{"VIP", "lead-2025"}},
		{"name": "ann smith", "email": "smith@example.com", "company": "ACME Corp", "tags": []string{"vip"}},
		{"name": "Zed", "email": "zed@annex.io", "tags": []string{"Lead"}},
		{"name": "Carl", "company": "Annapolis Ltd", "tags": []string{"x_y"}},
		{"name": "100% Pure", "tags": []string{"50%"}},
		{"name": "Émile Zoë", "email": "emile@example.fr", "tags": []string{"Ünïcode"}},
	} {
		f.create(t, f.api, c)
	}
	// Bob's contacts never show in Ann's list.
	f.create(t, f.bobAPI, map[string]any{"name": "Ann Lee (bob's)", "tags": []string{"VIP"}})

	cases := []struct {
		search, tag string
		want        []string
	}{
		{"", "", []string{"100% Pure", "Ann Lee", "Carl", "Zed", "ann smith", "Émile Zoë"}},
		{"Ann", "", []string{"Ann Lee", "Carl"}},  // name, company
		{"ann", "", []string{"Zed", "ann smith"}}, // email, name
		{"ANN", "", nil},
		{"acme", "", nil},
		{"ACME", "", []string{"ann smith"}},
		{"@example.", "", []string{"Ann Lee", "ann smith", "Émile Zoë"}},
		{"%", "", []string{"100% Pure"}},
		{"_", "", nil},
		{"Zoë", "", []string{"Émile Zoë"}},
		{"zoë", "", nil},
		{"", "VIP", []string{"Ann Lee"}},
		{"", "vip", []string{"ann smith"}},
		{"", "lead", []string{"Ann Lee"}}, // substring of "lead-2025", not "Lead"
		{"", "Lead", []string{"Zed"}},
		{"", "_", []string{"Carl"}},
		{"", "%", []string{"100% Pure"}},
		{"", "Ünï", []string{"Émile Zoë"}},
		{"", "ünï", nil},
		{"", "nope", nil},
		{"Ann", "VIP", []string{"Ann Lee"}},
		{"ann", "VIP", nil},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("search=%q,tag=%q", tc.search, tc.tag), func(t *testing.T) {
			t.Parallel()
			q := url.Values{}
			if tc.search != "" {
				q.Set("search", tc.search)
			}
			if tc.tag != "" {
				q.Set("tag", tc.tag)
			}
			got := f.list(t, f.api, q)
			if n := contactNames(got); !slices.Equal(n, tc.want) {
				t.Fatalf("REST = %q, want %q", n, tc.want)
			}
			if total := got["pagination"].(map[string]any)["total"]; total != float64(len(tc.want)) {
				t.Fatalf("total = %v, want %d", total, len(tc.want))
			}
			res, err := f.client("connect+json", f.annKey).ListContacts(context.Background(),
				&switchboardv1.ListContactsRequest{Search: tc.search, Tag: tc.tag})
			if err != nil {
				t.Fatal(err)
			}
			var rpc []string
			for _, c := range res.GetContacts() {
				rpc = append(rpc, c.GetName())
			}
			if !slices.Equal(rpc, tc.want) {
				t.Fatalf("Connect = %q, want %q", rpc, tc.want)
			}
		})
	}
}

// Ordered by name in code-point order on both databases, then by id; pages
// never overlap; an offset past the end is an empty page.
func TestListOrderAndPages(t *testing.T) {
	t.Parallel()
	f := newContactsFixture(t)
	var twins []string
	for _, n := range []string{"bob", "Émile", "alice", "Bob", "Alice", "Twin", "Twin", "_under", "Zed"} {
		c := f.create(t, f.api, map[string]any{"name": n})
		if n == "Twin" {
			twins = append(twins, c["id"].(string))
		}
	}
	want := []string{"Alice", "Bob", "Twin", "Twin", "Zed", "_under", "alice", "bob", "Émile"}
	all := f.list(t, f.api, nil)
	if got := contactNames(all); !slices.Equal(got, want) {
		t.Fatalf("order = %q, want %q", got, want)
	}
	var ids []string
	for _, c := range all["contacts"].([]any) {
		if c.(map[string]any)["name"] == "Twin" {
			ids = append(ids, c.(map[string]any)["id"].(string))
		}
	}
	slices.Sort(twins)
	if !slices.Equal(ids, twins) {
		t.Fatalf("equal names are not ordered by id: %v, want %v", ids, twins)
	}

	var paged []string
	for off := 0; off < len(want); off += 2 {
		p := f.list(t, f.api, url.Values{"limit": {"2"}, "offset": {strconv.Itoa(off)}})
		pg := p["pagination"].(map[string]any)
		wantMore := off+2 < len(want)
		if pg["total"] != float64(len(want)) || pg["limit"] != 2.0 || pg["offset"] != float64(off) || pg["hasMore"] != wantMore {
			t.Fatalf("offset %d pagination = %v", off, pg)
		}
		paged = append(paged, contactNames(p)...)
	}
	if !slices.Equal(paged, want) {
		t.Fatalf("pages = %q, want %q", paged, want)
	}

	cases := []struct {
		query   url.Values
		n       int
		limit   float64
		hasMore bool
	}{
		{url.Values{"offset": {"9"}}, 0, 50, false},
		{url.Values{"offset": {"1000"}}, 0, 50, false},
		{url.Values{"limit": {"0"}}, 9, 50, false},
		{url.Values{"limit": {"1000"}}, 9, 100, false},
		{url.Values{"limit": {"8"}}, 8, 8, true},
		{url.Values{"limit": {"1"}, "offset": {"8"}}, 1, 1, false},
	}
	for _, tc := range cases {
		p := f.list(t, f.api, tc.query)
		pg := p["pagination"].(map[string]any)
		if got := len(p["contacts"].([]any)); got != tc.n || pg["limit"] != tc.limit || pg["hasMore"] != tc.hasMore || pg["total"] != 9.0 {
			t.Errorf("?%s: %d contacts, pagination %v", tc.query.Encode(), got, pg)
		}
	}
	for _, q := range []string{"limit=-1", "offset=-1", "limit=abc", "limt=5"} {
		servertest.WantError(t, f.api.Do(http.MethodGet, "/api/v2/contacts?"+q, nil), http.StatusBadRequest)
	}
}
