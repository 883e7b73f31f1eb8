package a2a

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/a2aproject/a2a-go/a2a"

	"github.com/switchboard-hq/switchboard/server/contract"
)

// Rule is the access rule of POST /api/a2a: an API key with the a2a scope
// (RULINGS "Accounts, keys, sessions"). Sends count in the heavy class on
// top (Service.Charge), the other methods only in the per-key limit.
var Rule = contract.KeyRule("POST /api/a2a", "a2a", "")

// Path is where the JSON-RPC endpoint is served.
const Path = "/api/a2a"

// CardPath is the public agent card's path; LegacyCardPath is where clients
// of A2A before 0.3 look for it, and gets the same card.
const (
	CardPath       = "/.well-known/agent-card.json"
	LegacyCardPath = "/.well-known/agent.json"
)

// Card serves the public agent card (GET /.well-known/agent-card.json).
type Card struct {
	// Version is the instance's version.
	Version string
	// PublicURL is the instance's configured public address; the request's
	// host when empty.
	PublicURL string
	// MCPTools names the MCP endpoint's tools, listed on the card.
	MCPTools func() []string
}

// v1Interface is an entry of the v1.0 supportedInterfaces list.
type v1Interface struct {
	URL             string `json:"url"`
	ProtocolBinding string `json:"protocolBinding"`
	ProtocolVersion string `json:"protocolVersion"`
}

// cardDoc is the card: the v0.3 card (the SDK's type) plus the v1.0
// supportedInterfaces and Switchboard's methods and MCP tools.
type cardDoc struct {
	a2a.AgentCard
	SupportedInterfaces []v1Interface       `json:"supportedInterfaces"`
	Methods             map[string][]string `json:"methods"`
	MCPTools            []string            `json:"mcpTools"`
}

// skills are what the operator's queue accepts.
var skills = []a2a.AgentSkill{
	{ID: "tasks", Name: "Tasks", Tags: []string{"tasks", "queue"},
		Description: "Hand the operator a task: it joins the operator's queue, waits for approval, and reports a result as an artifact."},
	{ID: "approvals", Name: "Approvals", Tags: []string{"approvals", "widgets"},
		Description: "Ask the operator to approve or decline something, with choice_card, action_list, info_card or payment_prompt widgets."},
	{ID: "scheduling", Name: "Scheduling", Tags: []string{"scheduling", "calendar"},
		Description: "Ask the operator to schedule or reschedule; results may come back as calendar_invite artifacts."},
	{ID: "questions", Name: "Questions", Tags: []string{"questions"},
		Description: "Ask the operator a question; the answer comes back as the task's artifact, or the task asks for more input."},
}

// methodNames lists each family's methods for the card.
func methodNames() map[string][]string {
	return map[string][]string{
		"legacy": {"tasks/send", "tasks/respond", "tasks/get"},
		"0.3":    {"message/send", "message/stream", "tasks/get", "tasks/cancel", "tasks/resubscribe"},
		"1.0":    {"SendMessage", "SendStreamingMessage", "GetTask", "ListTasks", "CancelTask", "SubscribeToTask"},
	}
}

func (c *Card) base(r *http.Request) string {
	if c.PublicURL != "" {
		return strings.TrimRight(c.PublicURL, "/")
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// Doc is the card for a request (the URLs are absolute): v1.0's shape when
// the request names A2A-Version 1.0, v0.3's otherwise, which a2a-go v0.3
// needs (RULINGS "A2A" details of 2026-11-28).
func (c *Card) Doc(r *http.Request) any {
	base := c.base(r)
	endpoint := base + Path
	var tools []string
	if c.MCPTools != nil {
		tools = c.MCPTools()
	}
	if tools == nil {
		tools = []string{}
	}
	interfaces := []v1Interface{
		{URL: endpoint, ProtocolBinding: "JSONRPC", ProtocolVersion: "1.0"},
		{URL: endpoint, ProtocolBinding: "JSONRPC", ProtocolVersion: "0.3"},
	}
	if requestedVersion(r) == "1.0" {
		return cardV1{
			Name: cardName, Description: cardDescription, SupportedInterfaces: interfaces,
			Version: c.Version, DocumentationURL: base + "/api/v2/docs",
			Capabilities:      v1Capabilities{Streaming: true, PushNotifications: false},
			DefaultInputModes: modes, DefaultOutputModes: modes, Skills: skills,
			SecuritySchemes: map[string]v1SecurityScheme{"bearer": {HTTPAuth: &v1HTTPAuth{
				Scheme: "Bearer", Description: bearerDescription}}},
			SecurityRequirements: []v1SecurityRequirement{{Schemes: map[string]v1StringList{"bearer": {List: []string{}}}}},
			Methods:              methodNames(), MCPTools: tools,
		}
	}
	return cardDoc{
		AgentCard: a2a.AgentCard{
			Name:        cardName,
			Description: cardDescription,
			URL:         endpoint, PreferredTransport: a2a.TransportProtocolJSONRPC, ProtocolVersion: "0.3.0",
			AdditionalInterfaces: []a2a.AgentInterface{{Transport: a2a.TransportProtocolJSONRPC, URL: endpoint}},
			Version:              c.Version,
			DocumentationURL:     base + "/api/v2/docs",
			Capabilities:         a2a.AgentCapabilities{Streaming: true},
			DefaultInputModes:    modes,
			DefaultOutputModes:   modes,
			Skills:               skills,
			SecuritySchemes: a2a.NamedSecuritySchemes{"bearer": a2a.HTTPAuthSecurityScheme{
				Scheme: "bearer", Description: bearerDescription}},
			Security: []a2a.SecurityRequirements{{"bearer": a2a.SecuritySchemeScopes{}}},
		},
		SupportedInterfaces: interfaces,
		Methods:             methodNames(),
		MCPTools:            tools,
	}
}

const (
	cardName          = "Switchboard"
	cardDescription   = "The operator's Switchboard: send a task and it joins the operator's queue; the operator approves it, works it and reports the result."
	bearerDescription = "A Switchboard API key with the a2a scope: Authorization: Bearer <API key>"
)

var modes = []string{"text/plain", "application/json"}

// cardV1 is the v1.0 AgentCard as ProtoJSON writes it, plus Switchboard's
// methods and MCP tools.
type cardV1 struct {
	Name                 string                      `json:"name"`
	Description          string                      `json:"description"`
	SupportedInterfaces  []v1Interface               `json:"supportedInterfaces"`
	Version              string                      `json:"version"`
	DocumentationURL     string                      `json:"documentationUrl"`
	Capabilities         v1Capabilities              `json:"capabilities"`
	SecuritySchemes      map[string]v1SecurityScheme `json:"securitySchemes"`
	SecurityRequirements []v1SecurityRequirement     `json:"securityRequirements"`
	DefaultInputModes    []string                    `json:"defaultInputModes"`
	DefaultOutputModes   []string                    `json:"defaultOutputModes"`
	Skills               []a2a.AgentSkill            `json:"skills"`
	Methods              map[string][]string         `json:"methods"`
	MCPTools             []string                    `json:"mcpTools"`
}

type v1Capabilities struct {
	Streaming         bool `json:"streaming"`
	PushNotifications bool `json:"pushNotifications"`
}

// v1SecurityScheme is v1.0's SecurityScheme, a oneof named by its member.
type v1SecurityScheme struct {
	HTTPAuth *v1HTTPAuth `json:"httpAuthSecurityScheme,omitempty"`
}

type v1HTTPAuth struct {
	Scheme      string `json:"scheme"`
	Description string `json:"description"`
}

type v1SecurityRequirement struct {
	Schemes map[string]v1StringList `json:"schemes"`
}

type v1StringList struct {
	List []string `json:"list"`
}

// requestedVersion is the A2A version a request names: its A2A-Version
// header, or the parameter of that name the specification allows instead.
func requestedVersion(r *http.Request) string {
	if v := strings.TrimSpace(r.Header.Get(VersionHeader)); v != "" {
		return v
	}
	return strings.TrimSpace(r.URL.Query().Get(VersionHeader))
}

// ServeHTTP answers the card.
func (c *Card) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Cache-Control", "public, max-age=300")
	// The card depends on the version asked for: caches keep one per header.
	h.Set("Vary", VersionHeader)
	_ = json.NewEncoder(w).Encode(c.Doc(r))
}
