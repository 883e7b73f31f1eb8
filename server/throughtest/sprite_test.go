package throughtest

import (
	"net/http"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// Document 2 "SpriteSettings" and RULINGS "Onboarding, sprite, admin views,
// the developer portal" (Sprite and its Details).

var spriteDefaults = map[string]any{"enabled": true, "showLabels": true, "animationSpeed": "normal",
	"idleStyle": "float", "opacity": 1.0, "size": "normal"}

// spriteCase is one PUT: its REST body, its Connect request, and whether it
// is taken.
type spriteCase struct {
	name string
	rest map[string]any
	rpc  *switchboardv1.UpdateSpriteSettingsRequest
	ok   bool
}

func spriteCases() []spriteCase {
	c := func(name string, field string, v any, set func(*switchboardv1.UpdateSpriteSettingsRequest), ok bool) spriteCase {
		r := &switchboardv1.UpdateSpriteSettingsRequest{}
		set(r)
		return spriteCase{name: name, rest: map[string]any{field: v}, rpc: r, ok: ok}
	}
	opacity := func(v float64) func(*switchboardv1.UpdateSpriteSettingsRequest) {
		return func(r *switchboardv1.UpdateSpriteSettingsRequest) { r.Opacity = proto.Float64(v) }
	}
	cases := []spriteCase{
		c("opacity at its floor", "opacity", 0.3, opacity(0.3), true),
		c("opacity at its ceiling", "opacity", 1.0, opacity(1.0), true),
		c("opacity inside", "opacity", 0.65, opacity(0.65), true),
		c("opacity under its floor", "opacity", 0.29, opacity(0.29), false),
		c("opacity over its ceiling", "opacity", 1.01, opacity(1.01), false),
		c("opacity zero", "opacity", 0.0, opacity(0), false),
		c("opacity negative", "opacity", -1.0, opacity(-1), false),
		c("enabled off", "enabled", false, func(r *switchboardv1.UpdateSpriteSettingsRequest) { r.Enabled = proto.Bool(false) }, true),
		c("labels off", "showLabels", false, func(r *switchboardv1.UpdateSpriteSettingsRequest) { r.ShowLabels = proto.Bool(false) }, true),
	}
	enums := []struct {
		field, set string
		put        func(*switchboardv1.UpdateSpriteSettingsRequest, string)
	}{
		{"animationSpeed", "sprite_animation_speed", func(r *switchboardv1.UpdateSpriteSettingsRequest, v string) { r.AnimationSpeed = &v }},
		{"idleStyle", "sprite_idle_style", func(r *switchboardv1.UpdateSpriteSettingsRequest, v string) { r.IdleStyle = &v }},
		{"size", "sprite_size", func(r *switchboardv1.UpdateSpriteSettingsRequest, v string) { r.Size = &v }},
	}
	for _, e := range enums {
		for _, v := range vocab.Values(e.set) {
			cases = append(cases, c(e.field+" "+v, e.field, v, func(r *switchboardv1.UpdateSpriteSettingsRequest) { e.put(r, v) }, true))
		}
		for _, v := range []string{"", "Normal", "medium", " float"} {
			cases = append(cases, c(e.field+" "+v+"?", e.field, v, func(r *switchboardv1.UpdateSpriteSettingsRequest) { e.put(r, v) }, false))
		}
	}
	return cases
}

// GET answers the defaults until a PUT; each PUT applies only its field and
// answers the whole; values outside the sets and the range (an empty string
// too) are 400 naming the field and change nothing; over REST.
func TestSpriteSettingsREST(t *testing.T) {
	t.Parallel()
	srv := servertest.New(t)
	ann, bob := srv.SignUp("ann"), srv.SignUp("bob")
	get := func(acc *servertest.Account) map[string]any {
		res := acc.Session.Do(http.MethodGet, "/api/user/sprite-settings", nil)
		servertest.WantStatus(t, res, http.StatusOK)
		return res.JSON(t)["settings"].(map[string]any)
	}
	if got := get(ann); !sameSprite(got, spriteDefaults) {
		t.Fatalf("defaults: %v", got)
	}
	want := map[string]any{}
	for k, v := range spriteDefaults {
		want[k] = v
	}
	for _, c := range spriteCases() {
		res := ann.Session.Do(http.MethodPut, "/api/user/sprite-settings", c.rest)
		if !c.ok {
			field := ""
			for k := range c.rest {
				field = k
			}
			servertest.WantErrorContaining(t, res, http.StatusBadRequest, field)
			if got := get(ann); !sameSprite(got, want) {
				t.Errorf("%s: a refused PUT changed %v", c.name, got)
			}
			continue
		}
		servertest.WantStatus(t, res, http.StatusOK)
		for k, v := range c.rest {
			want[k] = v
		}
		if got := res.JSON(t)["settings"].(map[string]any); !sameSprite(got, want) {
			t.Errorf("%s: answered %v, want %v", c.name, got, want)
		}
		if got := get(ann); !sameSprite(got, want) {
			t.Errorf("%s: read back %v, want %v", c.name, got, want)
		}
	}
	// Bob's are his own; a key is refused (session only).
	if got := get(bob); !sameSprite(got, spriteDefaults) {
		t.Errorf("bob's: %v", got)
	}
	key := ann.NewKey("agent", "settings")
	servertest.WantStatus(t, srv.WithKey(key).Do(http.MethodGet, "/api/user/sprite-settings", nil), http.StatusForbidden)
	servertest.WantStatus(t, ann.Session.Do(http.MethodPut, "/api/user/sprite-settings", map[string]any{"opacity": "NaN"}), http.StatusBadRequest)
	servertest.WantStatus(t, ann.Session.Do(http.MethodPut, "/api/user/sprite-settings", map[string]any{"color": "red"}), http.StatusBadRequest)
}

// The same table over Connect.
func TestSpriteSettingsConnect(t *testing.T) {
	t.Parallel()
	srv := servertest.New(t)
	ann := srv.SignUp("ann")
	client := switchboardv1connect.NewSpriteServiceClient(sessionHTTP(srv, ann), srv.URL)
	got, err := client.GetSpriteSettings(t.Context(), &switchboardv1.GetSpriteSettingsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	want := proto.Clone(got.GetSettings()).(*switchboardv1.SpriteSettings)
	if !want.GetEnabled() || want.GetOpacity() != 1 || want.GetSize() != "normal" {
		t.Fatalf("defaults: %v", want)
	}
	for _, c := range spriteCases() {
		res, err := client.UpdateSpriteSettings(t.Context(), c.rpc)
		if !c.ok {
			servertest.WantCode(t, err, connect.CodeInvalidArgument)
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		applySprite(want, c.rpc)
		if !proto.Equal(res.GetSettings(), want) {
			t.Errorf("%s: answered %v, want %v", c.name, res.GetSettings(), want)
		}
	}
	now, err := client.GetSpriteSettings(t.Context(), &switchboardv1.GetSpriteSettingsRequest{})
	if err != nil || !proto.Equal(now.GetSettings(), want) {
		t.Errorf("read back %v (%v), want %v", now.GetSettings(), err, want)
	}
}

// applySprite applies a partial PUT to s, as the server should.
func applySprite(s *switchboardv1.SpriteSettings, r *switchboardv1.UpdateSpriteSettingsRequest) {
	if r.Enabled != nil {
		s.Enabled = r.GetEnabled()
	}
	if r.ShowLabels != nil {
		s.ShowLabels = r.GetShowLabels()
	}
	if r.AnimationSpeed != nil {
		s.AnimationSpeed = r.GetAnimationSpeed()
	}
	if r.IdleStyle != nil {
		s.IdleStyle = r.GetIdleStyle()
	}
	if r.Opacity != nil {
		s.Opacity = r.GetOpacity()
	}
	if r.Size != nil {
		s.Size = r.GetSize()
	}
}

func sameSprite(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
