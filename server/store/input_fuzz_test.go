package store

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protojson"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/apperr"
)

// Any request body either is refused with a 4xx error or gives a patch that
// merges into a consistent listing (or is refused there): never a panic, an
// internal error, or a listing that breaks the pricing and auth rules.
func FuzzParseAndMerge(f *testing.F) {
	for _, seed := range []string{
		`{"name":"X","endpointUrl":"https://93.184.215.14/"}`,
		`{"pricingModel":"per_task","pricePerTask":2,"authMethod":"bearer","authCredential":"tok_1"}`,
		`{"pricingModel":"dynamic","pricingConfig":{"dynamicConfig":{"estimateRange":[1,2]}}}`,
		`{"pricingModel":"tiered","pricingConfig":{"tiers":[{"name":"a","pricePerTask":1,"taskLimit":3}]}}`,
		`{"clearFields":["description","commands"],"taskTypes":["a","a"," b"]}`,
		`{"authMethod":"none","price":0,"pricingAmount":1}`,
		`{"version":"2.0.0","changelog":"x","requiredInputSchema":"{}"}`,
	} {
		f.Add(seed, true)
		f.Add(seed, false)
	}
	f.Fuzz(func(t *testing.T, body string, create bool) {
		in := &switchboardv1.StoreAgentInput{}
		if protojson.Unmarshal([]byte(body), in) != nil {
			return
		}
		p, err := parseInput(in, create)
		if err != nil {
			if e := apperr.From(err); e.HTTPStatus() >= 500 {
				t.Fatalf("parseInput(%s): %v", body, err)
			}
			return
		}
		cur := newListing()
		cur.name, cur.slug = "cur", "cur"
		sec := secrets{}
		if p.credential != nil {
			sec.credential = []byte("sealed")
		}
		next, _, err := merge(cur, p, sec)
		if err != nil {
			if e := apperr.From(err); e.HTTPStatus() >= 500 {
				t.Fatalf("merge(%s): %v", body, err)
			}
			return
		}
		switch next.pricingModel {
		case "free":
			if next.price != 0 {
				t.Fatalf("free with price %v", next.price)
			}
		case "per_task", "subscription":
			if next.price <= 0 {
				t.Fatalf("%s without a price", next.pricingModel)
			}
		}
		if (next.authMethod == "none") != (len(next.credential) == 0) {
			t.Fatalf("authMethod %s with credential %q", next.authMethod, next.credential)
		}
		if strings.ContainsRune(next.name, 0) {
			t.Fatal("NUL in name")
		}
	})
}
