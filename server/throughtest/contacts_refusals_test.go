package throughtest

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// RULINGS "Accounts, keys, sessions": another account's id answers 404 on
// every route and transport, and nothing of it changes.
func TestAnotherAccountsContactIsNotFound(t *testing.T) {
	t.Parallel()
	f := newContactsFixture(t)
	bobs := f.create(t, f.bobAPI, map[string]any{"name": "Bob's friend", "tags": []string{"secret"}})
	id := bobs["id"].(string)
	card := f.newCard(t, f.bob.ID, "Bob's card", nil)
	f.link(t, f.bob.ID, card.ID, id, f.s.Clock.Now(), nil)
	before := f.counts(t)

	for _, target := range []struct{ name, id string }{{"other account", id}, {"nonexistent", "cnonexistent000000000000"}} {
		t.Run(target.name, func(t *testing.T) {
			path := "/api/v2/contacts/" + target.id
			servertest.WantError(t, f.api.Do(http.MethodGet, path, nil), http.StatusNotFound)
			servertest.WantError(t, f.api.Do(http.MethodPut, path, map[string]any{"name": "Mine now"}), http.StatusNotFound)
			servertest.WantError(t, f.api.Do(http.MethodDelete, path, nil), http.StatusNotFound)

			ctx := context.Background()
			c := f.client("connect+json", f.annKey)
			_, err := c.GetContact(ctx, &switchboardv1.GetContactRequest{Id: target.id})
			servertest.WantCode(t, err, connect.CodeNotFound)
			_, err = c.UpdateContact(ctx, &switchboardv1.UpdateContactRequest{Id: target.id,
				Contact: &switchboardv1.ContactInput{Name: proto.String("Mine now")}})
			servertest.WantCode(t, err, connect.CodeNotFound)
			_, err = c.DeleteContact(ctx, &switchboardv1.DeleteContactRequest{Id: target.id})
			servertest.WantCode(t, err, connect.CodeNotFound)
		})
	}
	if got := f.list(t, f.api, nil)["contacts"].([]any); len(got) != 0 {
		t.Fatalf("ann lists bob's contacts: %v", got)
	}
	if after := f.counts(t); after != before {
		t.Fatalf("refused calls wrote rows: before %+v after %+v", before, after)
	}
	res := f.bobAPI.Do(http.MethodGet, "/api/v2/contacts/"+id, nil)
	if res.Status != http.StatusOK || fmt.Sprint(res.JSON(t)["contact"]) != fmt.Sprint(bobsWithCard(t, f, id)) {
		t.Fatalf("bob's contact changed: %s", res.Body)
	}
}

func bobsWithCard(t *testing.T, f *contactsFixture, id string) map[string]any {
	t.Helper()
	return f.bobAPI.Do(http.MethodGet, "/api/v2/contacts/"+id, nil).JSON(t)["contact"].(map[string]any)
}

// RULINGS "Errors": bad input is a clear 400 in the error form, and nothing
// is written: no contact, no card link, no activity entry.
func TestBadInputWritesNothingContacts(t *testing.T) {
	t.Parallel()
	f := newContactsFixture(t)
	existing := f.create(t, f.api, map[string]any{"name": "Keep", "email": "keep@example.com", "tags": []string{"a"}})
	id := existing["id"].(string)
	card := f.newCard(t, f.ann.ID, "Card", nil)
	f.link(t, f.ann.ID, card.ID, id, f.s.Clock.Now(), nil)
	before := f.counts(t)
	snapshot := f.api.Do(http.MethodGet, "/api/v2/contacts/"+id, nil).Body

	post, put := "/api/v2/contacts", "/api/v2/contacts/"+id
	cases := []struct {
		name, method, path, body string
	}{
		{"create malformed", http.MethodPost, post, `{"name":`},
		{"create not an object", http.MethodPost, post, `["name"]`},
		{"create unknown field", http.MethodPost, post, `{"name":"X","nickname":"x"}`},
		{"create snake_case unknown", http.MethodPost, post, `{"name":"X","bogus_field":"x"}`},
		{"create wrapped", http.MethodPost, post, `{"contact":{"name":"X"}}`},
		{"create empty body", http.MethodPost, post, ``},
		{"create empty object", http.MethodPost, post, `{}`},
		{"create missing name", http.MethodPost, post, `{"email":"x@example.com"}`},
		{"create blank name", http.MethodPost, post, `{"name":"   "}`},
		{"create bad email", http.MethodPost, post, `{"name":"X","email":"not-an-email"}`},
		{"create named email", http.MethodPost, post, `{"name":"X","email":"X <x@example.com>"}`},
		{"create NUL", http.MethodPost, post, `{"name":"X\u0000Y"}`},
		{"create tags not a list", http.MethodPost, post, `{"name":"X","tags":"a"}`},
		{"create blank tags only", http.MethodPost, post, `{"name":"X","tags":[" ",""]}`},
		{"create bad time", http.MethodPost, post, `{"name":"X","lastInteractionAt":"yesterday"}`},
		{"create name wrong type", http.MethodPost, post, `{"name":42}`},
		{"update malformed", http.MethodPut, put, `{"name":"Y"`},
		{"update unknown field", http.MethodPut, put, `{"name":"Y","nickname":"y"}`},
		{"update nothing", http.MethodPut, put, `{}`},
		{"update empty tags only", http.MethodPut, put, `{"tags":[]}`},
		{"update blank name", http.MethodPut, put, `{"name":""}`},
		{"update bad email", http.MethodPut, put, `{"name":"Y","email":"y@"}`},
		{"update NUL tag", http.MethodPut, put, `{"tags":["a\u0000"]}`},
		{"list negative limit", http.MethodGet, post + "?limit=-5", ``},
		{"list NUL search", http.MethodGet, post + "?search=a%00b", ``},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var body any
			if tc.body != "" {
				body = tc.body
			}
			servertest.WantError(t, f.api.Do(tc.method, tc.path, body), http.StatusBadRequest)
		})
	}

	ctx := context.Background()
	c := f.client("connect+json", f.annKey)
	for name, req := range map[string]*switchboardv1.ContactInput{
		"connect missing name": {Email: proto.String("x@example.com")},
		"connect bad email":    {Name: proto.String("X"), Email: proto.String("x")},
		"connect nil input":    nil,
	} {
		_, err := c.CreateContact(ctx, &switchboardv1.CreateContactRequest{Contact: req})
		if connect.CodeOf(err) != connect.CodeInvalidArgument {
			t.Errorf("%s: %v", name, err)
		}
	}
	_, err := c.UpdateContact(ctx, &switchboardv1.UpdateContactRequest{Id: id})
	servertest.WantCode(t, err, connect.CodeInvalidArgument)
	_, err = c.UpdateContact(ctx, &switchboardv1.UpdateContactRequest{Contact: &switchboardv1.ContactInput{Name: proto.String("Y")}})
	servertest.WantCode(t, err, connect.CodeInvalidArgument)
	_, err = c.GetContact(ctx, &switchboardv1.GetContactRequest{})
	servertest.WantCode(t, err, connect.CodeInvalidArgument)

	if after := f.counts(t); after != before {
		t.Fatalf("refused requests wrote rows: before %+v after %+v", before, after)
	}
	if now := f.api.Do(http.MethodGet, "/api/v2/contacts/"+id, nil).Body; string(now) != string(snapshot) {
		t.Fatalf("refused requests changed the contact:\n%s\n%s", snapshot, now)
	}
}

// A REST body is the ContactInput itself: every camelCase field reaches the
// service (a decoder that fell back to encoding/json would drop the
// multi-word ones silently).
func TestRESTBodyCarriesEveryField(t *testing.T) {
	t.Parallel()
	f := newContactsFixture(t)
	in := map[string]any{
		"name": "All", "email": "all@example.com", "phone": "1", "company": "Co", "role": "r",
		"preferredChannel": "sms", "notes": "n", "source": "s", "enrichedData": `{"k":true}`,
		"platformUserId": "pu", "platformUserStatus": "matched",
		"lastInteractionAt": "2025-04-05T16:45:30Z", "lastInteractionType": "call", "tags": []any{"t"},
	}
	c := f.create(t, f.api, in)
	for k, v := range in {
		if fmt.Sprint(c[k]) != fmt.Sprint(v) {
			t.Errorf("%s = %v, want %v", k, c[k], v)
		}
	}
	res := f.api.Do(http.MethodPut, "/api/v2/contacts/"+c["id"].(string), map[string]any{"preferredChannel": "email"})
	if res.Status != http.StatusOK || res.JSON(t)["contact"].(map[string]any)["preferredChannel"] != "email" {
		t.Fatalf("PUT preferredChannel: %d %s", res.Status, res.Body)
	}
}
