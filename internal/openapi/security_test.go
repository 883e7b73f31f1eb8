package openapi_test

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	genopenapi "github.com/switchboard-hq/switchboard/gen/openapi"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/contract"
)

// scheme is how the served description must declare one credential (RULINGS
// "Details for the house issue": every credential scheme is declared).
type scheme struct {
	name, typ, in, header string
}

var wantSchemes = map[switchboardv1.Credential]scheme{
	switchboardv1.Credential_CREDENTIAL_KEY:              {"bearerAuth", "http", "", ""},
	switchboardv1.Credential_CREDENTIAL_SESSION:          {"sessionCookie", "apiKey", "cookie", "sb_session"},
	switchboardv1.Credential_CREDENTIAL_PLATFORM_TOKEN:   {"platformToken", "http", "", ""},
	switchboardv1.Credential_CREDENTIAL_INSTANCE_KEY:     {"instanceKey", "apiKey", "header", "X-Federation-Token"},
	switchboardv1.Credential_CREDENTIAL_FEDERATION_TOKEN: {"federationToken", "apiKey", "header", "X-Federation-Token"},
	switchboardv1.Credential_CREDENTIAL_CONNECT_TOKEN:    {"connectToken", "http", "", ""},
	switchboardv1.Credential_CREDENTIAL_DEVELOPER_KEY:    {"developerKey", "http", "", ""},
	switchboardv1.Credential_CREDENTIAL_CRON_SECRET:      {"cronSecret", "apiKey", "header", "X-Cron-Secret"},
}

type operation struct {
	ID       string `json:"operationId"`
	Security []map[string][]string
}

type served struct {
	Paths      map[string]map[string]json.RawMessage
	Components struct {
		SecuritySchemes map[string]struct {
			Type, Scheme, In, Name string
		}
	}
}

// opID is "Service_Method" with the numeral of an additional binding.
var opID = regexp.MustCompile(`^([A-Za-z]+)_([A-Za-z]+?)\d*$`)

// The served OpenAPI declares every credential scheme and each operation
// names those its rule in the contract names, in its order, plus the empty
// alternative where no credential is needed (issue 27, point 7).
func TestSecurityFollowsTheContract(t *testing.T) {
	var doc served
	if err := json.Unmarshal(genopenapi.JSON, &doc); err != nil {
		t.Fatal(err)
	}
	values := switchboardv1.Credential_CREDENTIAL_UNSPECIFIED.Descriptor().Values()
	for i := range values.Len() {
		c := switchboardv1.Credential(values.Get(i).Number())
		if c == switchboardv1.Credential_CREDENTIAL_UNSPECIFIED {
			continue
		}
		want, ok := wantSchemes[c]
		if !ok {
			t.Errorf("credential %v has no scheme in this test", c)
			continue
		}
		got, ok := doc.Components.SecuritySchemes[want.name]
		if !ok {
			t.Errorf("credential %v: scheme %s is not declared", c, want.name)
			continue
		}
		if got.Type != want.typ || got.In != want.in || got.Name != want.header || (want.typ == "http" && got.Scheme != "bearer") {
			t.Errorf("scheme %s = %+v, want %+v", want.name, got, want)
		}
	}

	table := contract.MustLoad()
	covered := map[string]bool{}
	for path, item := range doc.Paths {
		for method, raw := range item {
			var op operation
			if err := json.Unmarshal(raw, &op); err != nil || op.ID == "" {
				continue // parameters and the like
			}
			t.Run(strings.ToUpper(method)+" "+path, func(t *testing.T) {
				want := [][]string{} // one scheme per alternative; empty: no credential
				if !strings.HasPrefix(op.ID, "Meta_") {
					m := opID.FindStringSubmatch(op.ID)
					if m == nil {
						t.Fatalf("operationId %q names no procedure", op.ID)
					}
					p, ok := table.ByName("/" + contract.Package + "." + m[1] + "/" + m[2])
					if !ok {
						t.Fatalf("operation %s is no procedure of the contract", op.ID)
					}
					covered[p.Name] = true
					want = expected(p.Rule)
				}
				got := [][]string{}
				for _, alt := range op.Security {
					names := []string{}
					for name := range alt {
						if _, ok := doc.Components.SecuritySchemes[name]; !ok {
							t.Errorf("security names %s, which is not declared", name)
						}
						names = append(names, name)
					}
					got = append(got, names)
				}
				if !slices.EqualFunc(got, want, slices.Equal) {
					t.Errorf("security = %v, want %v", got, want)
				}
			})
		}
	}
	for _, p := range table.All() {
		if len(p.Bindings) > 0 && !covered[p.Name] {
			t.Errorf("%s has REST routes but no operation in the OpenAPI", p.Name)
		}
	}
}

// expected is the security a rule calls for.
func expected(rule *switchboardv1.AccessRule) [][]string {
	out := [][]string{}
	creds := rule.GetCredentials()
	if rule.GetPublic() && len(creds) == 0 {
		return out
	}
	if rule.GetPublic() && rule.GetCredentialsOptional() {
		out = append(out, []string{})
	}
	for _, c := range creds {
		out = append(out, []string{wantSchemes[c].name})
	}
	return out
}

// Each credential a procedure checks itself is named by the procedures that
// take it (spot checks of the annotations, one per kind).
func TestOwnCredentials(t *testing.T) {
	table := contract.MustLoad()
	for name, want := range map[string][]switchboardv1.Credential{
		"/switchboard.v1.FederationHubService/Heartbeat":            {switchboardv1.Credential_CREDENTIAL_PLATFORM_TOKEN},
		"/switchboard.v1.FederationHubService/RegisterInstance":     {switchboardv1.Credential_CREDENTIAL_CONNECT_TOKEN},
		"/switchboard.v1.FederationSpokeService/Execute":            {switchboardv1.Credential_CREDENTIAL_INSTANCE_KEY},
		"/switchboard.v1.NetworkRelayPeerService/ReceiveRelay":      {switchboardv1.Credential_CREDENTIAL_FEDERATION_TOKEN},
		"/switchboard.v1.DeveloperService/RegisterDeveloperAgent":   {switchboardv1.Credential_CREDENTIAL_DEVELOPER_KEY, switchboardv1.Credential_CREDENTIAL_CONNECT_TOKEN},
		"/switchboard.v1.FederationPlatformService/DiscoverNetwork": {switchboardv1.Credential_CREDENTIAL_PLATFORM_TOKEN},
	} {
		p, ok := table.ByName(name)
		if !ok {
			t.Errorf("no procedure %s", name)
			continue
		}
		if got := p.Rule.GetCredentials(); !slices.Equal(got, want) {
			t.Errorf("%s names %v, want %v", name, got, want)
		}
	}
}
