package rules

import (
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"testing"
	"time"
)

func TestVerify(t *testing.T) {
	secret := "whsec_" + "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	key, err := Key(secret)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_700_000_000, 0)
	body := []byte(`{"title":"x"}`)
	sig := func(id string, ts int64, b []byte) string { return "v1," + Sign(key, id, ts, b) }
	ts := now.Unix()
	for _, tc := range []struct {
		name string
		h    Headers
		body []byte
		want error
	}{
		{"valid", Headers{"msg_1", strconv.FormatInt(ts, 10), sig("msg_1", ts, body)}, body, nil},
		{"one of several", Headers{"msg_1", strconv.FormatInt(ts, 10), "v1,bm9wZQ== v1a,xyz " + sig("msg_1", ts, body)}, body, nil},
		{"4m59s old", Headers{"msg_1", strconv.FormatInt(ts-299, 10), sig("msg_1", ts-299, body)}, body, nil},
		{"5m old", Headers{"msg_1", strconv.FormatInt(ts-300, 10), sig("msg_1", ts-300, body)}, body, nil},
		{"5m1s old", Headers{"msg_1", strconv.FormatInt(ts-301, 10), sig("msg_1", ts-301, body)}, body, ErrStale},
		{"5m1s ahead", Headers{"msg_1", strconv.FormatInt(ts+301, 10), sig("msg_1", ts+301, body)}, body, ErrStale},
		{"tampered body", Headers{"msg_1", strconv.FormatInt(ts, 10), sig("msg_1", ts, body)}, []byte(`{"title":"y"}`), ErrNoMatch},
		{"other id", Headers{"msg_2", strconv.FormatInt(ts, 10), sig("msg_1", ts, body)}, body, ErrNoMatch},
		{"wrong version", Headers{"msg_1", strconv.FormatInt(ts, 10), "v2," + Sign(key, "msg_1", ts, body)}, body, ErrNoMatch},
		{"missing id", Headers{"", strconv.FormatInt(ts, 10), sig("", ts, body)}, body, ErrMissingHeaders},
		{"bad timestamp", Headers{"msg_1", "soon", sig("msg_1", ts, body)}, body, ErrTimestamp},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := Verify(secret, tc.h, tc.body, now); !errors.Is(err, tc.want) {
				t.Fatalf("Verify = %v, want %v", err, tc.want)
			}
		})
	}
	if err := Verify("whsec_"+"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", Headers{"msg_1", strconv.FormatInt(ts, 10), sig("msg_1", ts, body)}, body, now); !errors.Is(err, ErrNoMatch) {
		t.Fatalf("wrong secret: %v", err)
	}
}

func TestNewSecret(t *testing.T) {
	s, err := NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	k, err := Key(s)
	if err != nil || len(k) != 24 {
		t.Fatalf("key of %q: %d bytes, %v", s, len(k), err)
	}
	if o, _ := NewSecret(); o == s {
		t.Fatal("two secrets alike")
	}
}

func TestParseSignatures(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"v1,abc", []string{"abc"}},
		{"v1,abc  v1,def", []string{"abc", "def"}},
		{"v1a,abc v1,", nil},
		{"", nil},
		{"v1abc", nil},
	} {
		if got := ParseSignatures(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseSignatures(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func flat(t *testing.T, s string) map[string]string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return Flatten(m)
}

func TestLearnAndApply(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       Mapping
	}{
		{"first candidates", `{"title":"A","subject":"B","body":"x","severity":"high","deadline":"2026-12-01"}`,
			Mapping{Title: "title", Description: "body", Priority: "severity", Due: "deadline"}},
		{"order of candidates", `{"summary":"S","name":"N","message":"m","text":"t"}`,
			Mapping{Title: "name", Description: "text"}},
		{"nested by dot path", `{"alert":{"summary":"Disk full","urgency":"p0"},"id":3}`,
			Mapping{Title: "alert.summary", Priority: "alert.urgency"}},
		{"blank skipped", `{"title":"  ","subject":"Hi"}`, Mapping{Title: "subject"}},
		{"nothing", `{"foo":1}`, Mapping{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Learn(flat(t, tc.body)); got != tc.want {
				t.Fatalf("Learn = %+v, want %+v", got, tc.want)
			}
		})
	}
	m := Mapping{Title: "alert.summary", Priority: "alert.urgency", Due: "when"}
	for _, tc := range []struct {
		name, body string
		want       Item
	}{
		{"learned field wins", `{"title":"other","alert":{"summary":"CPU hot","urgency":"sev2"},"when":"2026-12-02"}`,
			Item{Title: "CPU hot", Priority: "high", Due: "2026-12-02"}},
		{"falls back to candidates", `{"subject":"Fallback","priority":"critical","dueDate":"2026-12-03","text":"d"}`,
			Item{Title: "Fallback", Description: "d", Priority: "urgent", Due: "2026-12-03"}},
		{"else the hook's name", `{"foo":"bar"}`, Item{Title: "Webhook alerts", Priority: "low"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Apply(m, flat(t, tc.body), "alerts"); got != tc.want {
				t.Fatalf("Apply = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestPriority(t *testing.T) {
	for in, want := range map[string]string{
		"critical": "urgent", "URGENT": "urgent", "p0": "urgent", "sev1": "urgent", "1": "urgent",
		"high": "high", "P1": "high", "sev2": "high", "2": "high",
		"medium": "medium", "normal": "medium", "p2": "medium", "3": "medium",
		"low": "low", "p3": "low", "4": "low", "": "low", "whenever": "low",
	} {
		if got := Priority(in); got != want {
			t.Errorf("Priority(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAsksForSomething(t *testing.T) {
	for _, tc := range []struct {
		subject, text string
		want          bool
	}{
		{"Lunch?", "", true},
		{"Invoice", "Can you send it by Friday.\nThanks", true},
		{"PLEASE review", "", true},
		{"Action Required: renew", "", true},
		{"Change request 42", "", true},
		{"Could you help", "", true},
		{"Newsletter", "Here is the news.\nCan you believe it?", false},
		{"Newsletter", "Weekly digest", false},
		{"Re: notes", "Is this right?", true},
	} {
		if got := AsksForSomething(tc.subject, tc.text); got != tc.want {
			t.Errorf("AsksForSomething(%q, %q) = %v, want %v", tc.subject, tc.text, got, tc.want)
		}
	}
}

func TestActionItems(t *testing.T) {
	text := "Intro\nAction: send the deck\n- [ ] book the room\n- [x] done already\nTODO: call Sam\n" +
		"  * action: follow up with legal\nTodo list was long\nTODO\nNothing here"
	want := []string{"send the deck", "book the room", "call Sam", "follow up with legal"}
	if got := ActionItems(text); !reflect.DeepEqual(got, want) {
		t.Fatalf("ActionItems = %q, want %q", got, want)
	}
}
