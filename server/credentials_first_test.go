package server_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-hq/switchboard/server/contract"
	"github.com/switchboard-hq/switchboard/server/network"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// RULINGS "Credentials before bodies" and the house details' order of
// refusals (the operator-network switch 403, then the credential 401, then
// the body 400), over every route of the contract on both transports: each is
// sent a body (or query) the contract refuses, once with no credential and
// once with a credential of another kind, and must refuse the caller before
// reading the body. A new RPC joins by itself; a new public one must say below
// which credential its handler reads, or the test fails.

// opens names the public procedures that read no credential before the body,
// with the reason: their answer to a bad body is the body's refusal (or the
// route's own answer). bearer marks those that take no credential but check
// one when it is presented: a bearer of another kind is 401 there too.
var opens = map[string]struct {
	why    string
	bearer bool
}{
	"/switchboard.v1.AccountService/Setup":                       {why: "anyone, before the first account"},
	"/switchboard.v1.AccountService/GetSetup":                    {why: "anyone"},
	"/switchboard.v1.AccountService/Signup":                      {why: "anyone"},
	"/switchboard.v1.AccountService/Login":                       {why: "the password is in the body"},
	"/switchboard.v1.AccountService/CheckUsername":               {why: "anyone"},
	"/switchboard.v1.AccountService/ResolveUsers":                {why: "anyone (public users only)"},
	"/switchboard.v1.DeveloperService/DeveloperSignup":           {why: "anyone"},
	"/switchboard.v1.StoreService/GetStoreFeeInfo":               {why: "anyone"},
	"/switchboard.v1.UpdateService/ListUpdates":                  {why: "anyone"},
	"/switchboard.v1.StoreExecutionService/DeliverStoreCallback": {why: "the execution's callback token is in the body"},
	"/switchboard.v1.StoreExecutionService/GetStoreCallback":     {why: "anyone may ask whether an execution is done"},
	"/switchboard.v1.StoreReviewService/StoreLifecycle":          {why: "the sweep needs no credential; the confirm's is read with its body"},
	"/switchboard.v1.FederationHubService/RegisterInstance":      {why: "the instance key is in the body"},
	"/switchboard.v1.FederationPlatformService/BrowseFederation": {why: "anyone, on a hub"},
	"/switchboard.v1.FederationPlatformService/DiscoverNetwork":  {why: "anyone, on a hub", bearer: true},
	"/switchboard.v1.NetworkExchangeService/GetPatterns":         {why: "anyone; a session, key or peer token shows more"},
	"/switchboard.v1.TeamService/PreviewTeamInvite":              {why: "the invite's token in the path is the credential"},
	"/switchboard.v1.ProfileService/GetProfile":                  {why: "anyone for a public profile; a session, key or peer token sees network ones (a peer token is checked first)"},
	"/switchboard.v1.ProfileService/GetTeamProfile":              {why: "anyone for a public team; a session, key or peer token sees network ones (a peer token is checked first)"},
}

// Every route is called on a hub whose operator network is off (the switch
// answers the peers' routes: 403) and on a standalone whose network is on (a
// standalone is not a hub: the hub's routes are 404 before any credential).
func TestCredentialsBeforeBodies(t *testing.T) {
	t.Parallel()
	hub := servertest.New(t, servertest.WithRole("hub"), servertest.WithCronSecret(HeldCronSecret))
	standalone := servertest.New(t, servertest.WithNetwork(network.Config{Enabled: true}), servertest.WithCronSecret(HeldCronSecret))
	procs := contract.MustLoad().All()
	for _, srv := range []struct {
		name       string
		s          *servertest.Server
		hub, peers int // the answer of the hub's and of the peers' routes
	}{
		{"hub, network off", hub, http.StatusUnauthorized, http.StatusForbidden},
		{"standalone, network on", standalone, http.StatusNotFound, http.StatusUnauthorized},
	} {
		s := srv.s
		s.SignUp("owner")
		ann := s.SignUp("ann")
		asKey := s.WithKey(ann.NewKey("all", "queue", "chat", "kanban", "contacts", "settings", "mcp", "a2a", "store", "network"))
		// A peer's token, for the routes of keys and sessions.
		peerToken := []string{"X-Federation-Token", "sbf_notaconnectionstokenatall0000000000000000"}
		t.Run(srv.name, func(t *testing.T) {
			for _, p := range procs {
				if p.Descriptor.IsStreamingServer() || p.Descriptor.IsStreamingClient() {
					continue
				}
				open, isOpen := opens[p.Name]
				for _, r := range requests(p, pathVars(p)) {
					r = malformed(r)
					anonymous := s.Anonymous().Do(r.method, r.path, r.body)
					var other *servertest.Response
					if p.Public {
						other = asKey.Do(r.method, r.path, r.body)
					} else {
						other = s.Anonymous().Do(r.method, r.path, r.body, peerToken...)
					}
					wantNone, wantOther := []int{http.StatusUnauthorized}, []int{http.StatusUnauthorized}
					switch {
					case isOpen:
						wantNone, wantOther = nil, nil // the route's own answer, checked below
						if open.bearer && srv.hub == http.StatusUnauthorized {
							wantOther = []int{http.StatusUnauthorized}
						}
					case !p.Public:
						// A peer's token where a key or session is needed:
						// the access matrix's answers, before the body.
						wantOther = []int{http.StatusUnauthorized, http.StatusForbidden}
					case p.Name == "/switchboard.v1.NetworkPeerService/ReceiveConnection":
						// A connection request proves its caller by the
						// origin its body names: past the switch, the body.
						if srv.peers == http.StatusForbidden {
							wantNone, wantOther = []int{srv.peers}, []int{srv.peers}
						} else {
							wantNone, wantOther = nil, nil
						}
					case peerRoute(p):
						wantNone, wantOther = []int{srv.peers}, []int{srv.peers}
					case hubRoute(p):
						wantNone, wantOther = []int{srv.hub}, []int{srv.hub}
					}
					for _, c := range []struct {
						who  string
						res  *servertest.Response
						want []int
					}{{"no credential", anonymous, wantNone}, {"a credential of another kind", other, wantOther}} {
						if c.res.Status >= 500 || (c.want != nil && !slices.Contains(c.want, c.res.Status)) {
							t.Errorf("%s %s %s, bad body, %s: %d %s, want %v", r.transport, r.method, r.path, c.who, c.res.Status, c.res.Body, c.want)
						}
					}
				}
			}
		})
	}
	for name := range opens {
		if p, ok := contract.MustLoad().ByName(name); !ok || !p.Public {
			t.Errorf("opens names %s, which is no public procedure of the contract", name)
		}
	}
}

// pathVars sets every path variable of p to an id that names no row.
func pathVars(p *contract.Procedure) map[string]string {
	vars := map[string]string{}
	for _, b := range p.Bindings {
		for _, m := range pathVariable.FindAllStringSubmatch(b.Template, -1) {
			vars[m[1]] = "unknown-" + m[1]
		}
	}
	return vars
}

// hubRoute: the hub's procedures for its spokes (a standalone is no hub).
func hubRoute(p *contract.Procedure) bool {
	for _, svc := range []string{"FederationHubService/", "FederationMarketService/", "FederationResultService/", "FederationPlatformService/"} {
		if strings.Contains(p.Name, "/switchboard.v1."+svc) {
			return true
		}
	}
	return false
}

// peerRoute: the procedures a connection's peer calls with its token, the
// operator network's own and those of the areas that ride on it (the task
// economy's EconomyPeerService): the network's switch, then the token. Any
// …PeerService joins by its name.
func peerRoute(p *contract.Procedure) bool {
	return strings.HasPrefix(p.Name, "/switchboard.v1.") && strings.Contains(p.Name, "PeerService/")
}

// malformed adds a field (or query parameter) the contract does not have.
func malformed(r request) request {
	if r.transport == "connect" || r.body != nil {
		body := map[string]any{}
		if m, ok := r.body.(map[string]any); ok {
			for k, v := range m {
				body[k] = v
			}
		}
		body["notAField"] = 1
		r.body = body
		return r
	}
	sep := "?"
	if strings.Contains(r.path, "?") {
		sep = "&"
	}
	r.path += sep + "notAField=1"
	return r
}
