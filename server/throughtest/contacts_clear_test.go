package throughtest

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"

	"github.com/switchboard-hq/switchboard/ent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/servertest"
)

// clearableContactFields are the names ContactInput.clear_fields documents,
// in field order; the refusals name them in this order.
var clearableContactFields = []string{
	"email", "phone", "company", "role", "preferredChannel", "notes", "source", "enrichedData",
	"platformUserId", "platformUserStatus", "lastInteractionAt", "lastInteractionType", "tags",
}

// fullContact makes a contact with every ContactInput field set, on a card,
// and answers its REST rendering.
func (f *contactsFixture) fullContact(t *testing.T) map[string]any {
	t.Helper()
	c := f.create(t, f.api, map[string]any{
		"name": "All", "email": "all@example.com", "phone": "1", "company": "Co", "role": "r",
		"preferredChannel": "sms", "notes": "n", "source": "s", "enrichedData": `{"k":true}`,
		"platformUserId": "pu", "platformUserStatus": "matched",
		"lastInteractionAt": "2025-04-05T16:45:30Z", "lastInteractionType": "call", "tags": []any{"t1", "t2"},
	})
	id := c["id"].(string)
	f.link(t, f.ann.ID, f.newCard(t, f.ann.ID, "Card", nil).ID, id, f.s.Clock.Now(), nil)
	return f.get(t, f.api, id)
}

func (f *contactsFixture) get(t *testing.T, api *servertest.Caller, id string) map[string]any {
	t.Helper()
	res := api.Do(http.MethodGet, "/api/v2/contacts/"+id, nil)
	if res.Status != http.StatusOK {
		t.Fatalf("get %s: %d %s", id, res.Status, res.Body)
	}
	return res.JSON(t)["contact"].(map[string]any)
}

// lastUpdate answers the fields of the account's newest contact_updated entry.
func (f *contactsFixture) lastUpdate(t *testing.T) []string {
	t.Helper()
	var last *ent.ActivityEntry
	for _, e := range f.activity(t, f.ann.ID) {
		if e.Action == "contact_updated" {
			last = e
		}
	}
	if last == nil {
		t.Fatal("no contact_updated entry")
	}
	var out []string
	for _, v := range metadata(t, last)["fields"].([]any) {
		out = append(out, v.(string))
	}
	return out
}

// clearFields on PUT empties each clearable field, and only it: optional
// fields become null, tags []. The contact_updated entry names the field.
func TestClearEachContactField(t *testing.T) {
	t.Parallel()
	f := newContactsFixture(t)
	for _, field := range clearableContactFields {
		t.Run(field, func(t *testing.T) {
			before := f.fullContact(t)
			id := before["id"].(string)
			want := any(nil)
			if field == "tags" {
				want = []any{}
			}
			if v := before[field]; v == nil || reflect.DeepEqual(v, want) {
				t.Fatalf("%s is not set before the clear: %v", field, v)
			}
			f.s.Clock.Advance(time.Second)
			res := f.api.Do(http.MethodPut, "/api/v2/contacts/"+id, map[string]any{"clearFields": []string{field}})
			if res.Status != http.StatusOK {
				t.Fatalf("PUT: %d %s", res.Status, res.Body)
			}
			got := res.JSON(t)["contact"].(map[string]any)
			if v, ok := got[field]; !ok || !reflect.DeepEqual(v, want) {
				t.Errorf("%s = %#v (present %v), want %#v", field, v, ok, want)
			}
			if !reflect.DeepEqual(got, f.get(t, f.api, id)) {
				t.Errorf("PUT answer differs from GET")
			}
			for k, v := range before {
				if k != field && k != "updatedAt" && !reflect.DeepEqual(got[k], v) {
					t.Errorf("clearing %s changed %s: %v → %v", field, k, v, got[k])
				}
			}
			if !servertest.At(t, got["updatedAt"]).Equal(f.s.Clock.Now()) {
				t.Errorf("updatedAt = %v", got["updatedAt"])
			}
			if fields := f.lastUpdate(t); !slices.Equal(fields, []string{field}) {
				t.Errorf("contact_updated fields = %v", fields)
			}
		})
	}
}

// The same over Connect (JSON): every clearable field at once, duplicates
// included; the RPC form omits the absent fields and writes tags [].
func TestClearEveryContactFieldOverConnect(t *testing.T) {
	t.Parallel()
	f := newContactsFixture(t)
	id := f.fullContact(t)["id"].(string)
	names := append(slices.Clone(clearableContactFields), "tags", "email")
	res := f.api.Do(http.MethodPost, "/switchboard.v1.ContactService/UpdateContact",
		map[string]any{"id": id, "contact": map[string]any{"clearFields": names}})
	if res.Status != http.StatusOK {
		t.Fatalf("UpdateContact: %d %s", res.Status, res.Body)
	}
	got := res.JSON(t)["contact"].(map[string]any)
	for _, field := range clearableContactFields {
		v, ok := got[field]
		if field == "tags" {
			if !reflect.DeepEqual(v, []any{}) {
				t.Errorf("tags = %#v, want []", v)
			}
		} else if ok {
			t.Errorf("%s = %#v, want absent", field, v)
		}
	}
	if got["name"] != "All" || len(got["cards"].([]any)) != 1 {
		t.Errorf("contact = %v", got)
	}
	if fields := f.lastUpdate(t); !slices.Equal(fields, clearableContactFields) {
		t.Errorf("contact_updated fields = %v", fields)
	}
}

// Setting and clearing in one request; the entry names both, supplied fields
// first.
func TestClearContactWithOtherChanges(t *testing.T) {
	t.Parallel()
	f := newContactsFixture(t)
	id := f.fullContact(t)["id"].(string)
	res := f.api.Do(http.MethodPut, "/api/v2/contacts/"+id, `{"name":"Renamed","phone":"2","clearFields":["tags","email","tags"]}`)
	if res.Status != http.StatusOK {
		t.Fatalf("PUT: %d %s", res.Status, res.Body)
	}
	got := res.JSON(t)["contact"].(map[string]any)
	if got["name"] != "Renamed" || got["phone"] != "2" || got["email"] != nil || !reflect.DeepEqual(got["tags"], []any{}) ||
		got["company"] != "Co" {
		t.Errorf("contact = %v", got)
	}
	if fields := f.lastUpdate(t); !slices.Equal(fields, []string{"name", "phone", "email", "tags"}) {
		t.Errorf("contact_updated fields = %v", fields)
	}
	// Emptied tags are found by no tag filter.
	if list := f.list(t, f.api, map[string][]string{"tag": {"t"}}); len(list["contacts"].([]any)) != 0 {
		t.Errorf("tag filter finds %v", contactNames(list))
	}
}

// Refusals: an unknown or required name, a field both set and cleared,
// clearFields on create. 400 on both transports with the same message, and
// nothing written.
func TestClearContactRefusals(t *testing.T) {
	t.Parallel()
	f := newContactsFixture(t)
	snapshot := f.fullContact(t)
	id := snapshot["id"].(string)
	allowed := "; clearable fields: " + strings.Join(clearableContactFields, ", ")
	unknown := func(name string) string { return `clearFields: unknown field "` + name + `"` + allowed }
	both := func(name string) string { return "clearFields: " + name + " is both set and cleared" }
	const create = "clearFields is for updates only: a new contact has nothing to clear"

	cases := []struct {
		name, method, body, want string
	}{
		{"unknown", http.MethodPut, `{"clearFields":["nickname"]}`, unknown("nickname")},
		{"proto name", http.MethodPut, `{"clearFields":["last_interaction_at"]}`, unknown("last_interaction_at")},
		{"empty name", http.MethodPut, `{"clearFields":[""]}`, unknown("")},
		{"clearFields itself", http.MethodPut, `{"clearFields":["clearFields"]}`, unknown("clearFields")},
		{"output-only field", http.MethodPut, `{"clearFields":["matchedAt"]}`, unknown("matchedAt")},
		{"required name", http.MethodPut, `{"clearFields":["name"]}`, "clearFields: name cannot be cleared (it is required)" + allowed},
		{"valid then invalid", http.MethodPut, `{"clearFields":["tags","cards"]}`, unknown("cards")},
		{"email set", http.MethodPut, `{"email":"x@example.com","clearFields":["email"]}`, both("email")},
		{"email emptied", http.MethodPut, `{"email":"","clearFields":["email"]}`, both("email")},
		{"time set", http.MethodPut, `{"lastInteractionAt":"2025-01-01T00:00:00Z","clearFields":["lastInteractionAt"]}`, both("lastInteractionAt")},
		{"tags set", http.MethodPut, `{"tags":["a"],"clearFields":["tags"]}`, both("tags")},
		{"blank tags set", http.MethodPut, `{"tags":[" "],"clearFields":["tags"]}`, "tags must not be blank (to empty them, name tags in clearFields)"},
		{"empty tags", http.MethodPut, `{"tags":[],"clearFields":[]}`, "no field to update: supply a contact field, or name the fields to clear in clearFields (an empty tags list counts as none)"},
		{"not a list", http.MethodPut, `{"clearFields":"tags"}`, ""},
		{"create", http.MethodPost, `{"name":"X","clearFields":["tags"]}`, create},
		{"create, nothing valid", http.MethodPost, `{"name":"X","clearFields":["name"]}`, create},
	}
	before := f.counts(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := "/api/v2/contacts"
			if tc.method == http.MethodPut {
				path += "/" + id
			}
			res := f.api.Do(tc.method, path, tc.body)
			servertest.WantError(t, res, http.StatusBadRequest)
			if msg := res.JSON(t)["error"].(string); tc.want != "" && msg != tc.want {
				t.Errorf("error = %q, want %q", msg, tc.want)
			}
		})
	}

	ctx := context.Background()
	for _, protocol := range []string{"connect+json", "grpc"} {
		c := f.client(protocol, f.annKey)
		for _, tc := range []struct {
			in   *switchboardv1.ContactInput
			want string
		}{
			{&switchboardv1.ContactInput{ClearFields: []string{"nickname"}}, unknown("nickname")},
			{&switchboardv1.ContactInput{ClearFields: []string{"name"}}, "clearFields: name cannot be cleared (it is required)" + allowed},
			{&switchboardv1.ContactInput{Tags: []string{"a"}, ClearFields: []string{"tags"}}, both("tags")},
		} {
			_, err := c.UpdateContact(ctx, &switchboardv1.UpdateContactRequest{Id: id, Contact: tc.in})
			if ce := new(connect.Error); !errors.As(err, &ce) || ce.Code() != connect.CodeInvalidArgument || ce.Message() != tc.want {
				t.Errorf("%s UpdateContact %v: %v, want %q", protocol, tc.in, err, tc.want)
			}
		}
		_, err := c.CreateContact(ctx, &switchboardv1.CreateContactRequest{Contact: &switchboardv1.ContactInput{
			Name: proto.String("X"), ClearFields: []string{"tags"}}})
		if ce := new(connect.Error); !errors.As(err, &ce) || ce.Code() != connect.CodeInvalidArgument || ce.Message() != create {
			t.Errorf("%s CreateContact with clearFields: %v", protocol, err)
		}
	}
	if after := f.counts(t); after != before {
		t.Errorf("refused clears wrote rows: before %+v after %+v", before, after)
	}
	if got := f.get(t, f.api, id); !reflect.DeepEqual(got, snapshot) {
		t.Errorf("refused clears changed the contact:\n%v\n%v", snapshot, got)
	}
}
