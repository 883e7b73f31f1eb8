package mcp

import (
	"encoding/json"
	"net/http"
	"strings"
)

// CardPath is where the server card is served (public).
const CardPath = "/.well-known/mcp/server-card.json"

// serverCard is the MCP server card: who this server is, where its
// Streamable HTTP endpoint is, what it can do, and its static tools without
// the store's two (docs/decisions.md "MCP").
type serverCard struct {
	Name         string         `json:"name"`
	Title        string         `json:"title"`
	Version      string         `json:"version"`
	Description  string         `json:"description"`
	Endpoint     cardEndpoint   `json:"endpoint"`
	Auth         cardAuth       `json:"authentication"`
	Capabilities map[string]any `json:"capabilities"`
	Tools        []cardTool     `json:"tools"`
	Resources    []string       `json:"resources"`
}

type cardEndpoint struct {
	Transport string `json:"transport"`
	URL       string `json:"url"`
}

type cardAuth struct {
	Scheme string `json:"scheme"`
	Header string `json:"header"`
	Scope  string `json:"scope"`
}

type cardTool struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	InputSchema any    `json:"inputSchema"`
}

// CardHandler serves the server card. base is the instance's public
// address; when empty the request's own host is used.
func (s *Server) CardHandler(base string) http.Handler {
	// The static tools without the store's, and the resources: the same for
	// every request.
	var tools []cardTool
	for _, t := range s.tools {
		if !strings.HasPrefix(t.name, storeToolPrefix) {
			tools = append(tools, cardTool{Name: t.name, Description: t.description, InputSchema: t.input})
		}
	}
	var uris []string
	for _, res := range resources {
		uris = append(uris, res.uri)
	}
	// The features initialize advertises, from the same declaration.
	caps := serverCapabilities()
	cardCapabilities := map[string]any{"tools": caps.Tools, "resources": caps.Resources, "prompts": caps.Prompts}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		card := serverCard{
			Name: "switchboard", Title: "Switchboard", Version: Version,
			Description:  "The operator's command center: task queue, board, contacts, settings and agent store, for AI agents.",
			Endpoint:     cardEndpoint{Transport: "streamable-http", URL: origin(base, r) + Path},
			Auth:         cardAuth{Scheme: "bearer", Header: "Authorization: Bearer <API key>", Scope: "mcp"},
			Capabilities: cardCapabilities,
		}
		card.Tools, card.Resources = tools, uris
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "public, max-age=300")
		w.Header().Set("Access-Control-Allow-Origin", "*")
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		_ = enc.Encode(card)
	})
}

// origin is base without a trailing slash, or the request's scheme and host.
func origin(base string, r *http.Request) string {
	if base != "" {
		return strings.TrimRight(base, "/")
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// ToolNames names the static tools, for the A2A agent card.
func (s *Server) ToolNames() []string {
	names := make([]string, 0, len(s.tools))
	for _, t := range s.tools {
		names = append(names, t.name)
	}
	return names
}
