package server_test

// The vocabulary test (issue 11, "One vocabulary"): every enumerated value set
// is declared once, in proto/switchboard/v1/vocabulary.proto, and each reader
// of it (the boundary validation, the ent schema, the OpenAPI document, the
// domain packages and the dashboard) agrees with the declaration. A copy
// written by hand is a failure even when it agrees today.

import (
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/switchboard-hq/switchboard/ent/agentqualitysignal"
	"github.com/switchboard-hq/switchboard/ent/assistantmessage"
	"github.com/switchboard-hq/switchboard/ent/boardinsight"
	"github.com/switchboard-hq/switchboard/ent/calendarevent"
	"github.com/switchboard-hq/switchboard/ent/capabilityinstall"
	"github.com/switchboard-hq/switchboard/ent/capabilitypack"
	"github.com/switchboard-hq/switchboard/ent/card"
	"github.com/switchboard-hq/switchboard/ent/cardlink"
	"github.com/switchboard-hq/switchboard/ent/checklistitem"
	"github.com/switchboard-hq/switchboard/ent/connecttoken"
	"github.com/switchboard-hq/switchboard/ent/contact"
	entcontract "github.com/switchboard-hq/switchboard/ent/contract"
	"github.com/switchboard-hq/switchboard/ent/contractamendment"
	"github.com/switchboard-hq/switchboard/ent/contractentry"
	"github.com/switchboard-hq/switchboard/ent/contractreview"
	"github.com/switchboard-hq/switchboard/ent/document"
	"github.com/switchboard-hq/switchboard/ent/execution"
	"github.com/switchboard-hq/switchboard/ent/federationauditlog"
	"github.com/switchboard-hq/switchboard/ent/federationinstance"
	"github.com/switchboard-hq/switchboard/ent/federationmembership"
	"github.com/switchboard-hq/switchboard/ent/inbounddelivery"
	"github.com/switchboard-hq/switchboard/ent/inboundwebhook"
	"github.com/switchboard-hq/switchboard/ent/job"
	"github.com/switchboard-hq/switchboard/ent/jobapplication"
	"github.com/switchboard-hq/switchboard/ent/learning"
	"github.com/switchboard-hq/switchboard/ent/migrate"
	"github.com/switchboard-hq/switchboard/ent/networkconnection"
	"github.com/switchboard-hq/switchboard/ent/notification"
	"github.com/switchboard-hq/switchboard/ent/project"
	"github.com/switchboard-hq/switchboard/ent/projectinvite"
	"github.com/switchboard-hq/switchboard/ent/projectmember"
	"github.com/switchboard-hq/switchboard/ent/providercapability"
	"github.com/switchboard-hq/switchboard/ent/queueitem"
	"github.com/switchboard-hq/switchboard/ent/relay"
	"github.com/switchboard-hq/switchboard/ent/setting"
	"github.com/switchboard-hq/switchboard/ent/spritesetting"
	"github.com/switchboard-hq/switchboard/ent/storeagent"
	"github.com/switchboard-hq/switchboard/ent/team"
	"github.com/switchboard-hq/switchboard/ent/teaminvite"
	"github.com/switchboard-hq/switchboard/ent/teammember"
	"github.com/switchboard-hq/switchboard/ent/teamsubscription"
	"github.com/switchboard-hq/switchboard/ent/user"
	"github.com/switchboard-hq/switchboard/ent/userreputation"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/contract"
	"github.com/switchboard-hq/switchboard/server/input"
	"github.com/switchboard-hq/switchboard/server/kanban"
	"github.com/switchboard-hq/switchboard/server/queue"
	"github.com/switchboard-hq/switchboard/server/store"
	"github.com/switchboard-hq/switchboard/server/webhooks"
)

// taggedField is a contract field that names a vocabulary.
type taggedField struct {
	fd  protoreflect.FieldDescriptor
	set *vocab.Set
}

// taggedFields walks every message of the contract, nested ones too.
func taggedFields(t *testing.T) []taggedField {
	t.Helper()
	var out []taggedField
	var walk func(protoreflect.MessageDescriptors)
	walk = func(ms protoreflect.MessageDescriptors) {
		for i := 0; i < ms.Len(); i++ {
			m := ms.Get(i)
			for j := 0; j < m.Fields().Len(); j++ {
				fd := m.Fields().Get(j)
				name, _ := proto.GetExtension(fd.Options(), switchboardv1.E_Vocabulary).(string)
				if name == "" {
					continue
				}
				set, ok := vocab.Lookup(name)
				if !ok {
					t.Errorf("%s names vocabulary %q, which vocabulary.proto does not declare", fd.FullName(), name)
					continue
				}
				if fd.Kind() != protoreflect.StringKind || fd.IsMap() {
					t.Errorf("%s names a vocabulary but is not a string or a list of strings", fd.FullName())
					continue
				}
				out = append(out, taggedField{fd, set})
			}
			walk(m.Messages())
		}
	}
	for _, f := range contract.PackageFiles(protoregistry.GlobalFiles) {
		walk(f.Messages())
	}
	if len(out) < 50 {
		t.Fatalf("found only %d fields naming a vocabulary; the walk is broken", len(out))
	}
	return out
}

// The declarations hold together: labels everywhere, no value twice, and
// every vocabulary is read by a field of the contract or by a package here.
func TestVocabularyDeclarations(t *testing.T) {
	used := map[string]bool{}
	for _, f := range taggedFields(t) {
		used[f.set.Name] = true
	}
	for _, s := range vocab.All() {
		if len(s.Values) == 0 {
			t.Errorf("vocabulary %s has no values", s.Name)
		}
		for _, v := range s.Values {
			if s.Labels[v] == "" {
				t.Errorf("vocabulary %s: %q has no label", s.Name, v)
			}
		}
	}
	// Read only by the server: values inside JSON-in-a-string fields, or
	// included by another vocabulary; widget_terminal_action is a subset of
	// the free-form RespondToWidgetRequest.action that completes the item.
	// artifact_type is read from a result's free-form metadata, discover_type
	// and execution_origin by the handlers that check them (issue 27 moved
	// them here from Go-only lists).
	// relay_thread_status and relay_thread_filter by the MCP relay_threads
	// tool, pricing_phase by the engine (the execution's pricingPhase field
	// is an answer, never validated).
	for _, name := range []string{"pack_field_type", "integration", "widget_terminal_action", "artifact_type", "discover_type", "execution_origin",
		"relay_thread_status", "relay_thread_filter", "pricing_phase"} {
		used[name] = true
	}
	for _, name := range networkRulesOnly {
		used[name] = true
	}
	for _, s := range vocab.All() {
		if !used[s.Name] {
			t.Errorf("vocabulary %s is named by no field of the contract", s.Name)
		}
	}
}

// Validation: the boundary check (both transports call it) refuses a value
// outside a field's vocabulary with 400 naming the field, and accepts each
// value inside it.
func TestVocabularyValidation(t *testing.T) {
	for _, f := range taggedFields(t) {
		bad := dynamicpb.NewMessage(f.fd.ContainingMessage())
		setString(bad, f.fd, "not_a_value")
		err := input.Check(bad)
		if e := apperr.From(err); err == nil || e.Kind != apperr.KindInvalid || !strings.Contains(e.Message, f.fd.JSONName()) {
			t.Errorf("%s = not_a_value: Check = %v, want a 400 naming %s", f.fd.FullName(), err, f.fd.JSONName())
		}
		for _, v := range f.set.Values {
			good := dynamicpb.NewMessage(f.fd.ContainingMessage())
			setString(good, f.fd, v)
			if err := input.Check(good); err != nil && strings.Contains(err.Error(), "is not one of") {
				t.Errorf("%s = %q: Check = %v, want it accepted", f.fd.FullName(), v, err)
			}
		}
	}
}

func setString(m *dynamicpb.Message, fd protoreflect.FieldDescriptor, v string) {
	if fd.IsList() {
		m.Mutable(fd).List().Append(protoreflect.ValueOfString(v))
		return
	}
	m.Set(fd, protoreflect.ValueOfString(v))
}

// entEnum adapts a generated ent validator to plain strings.
func entEnum[T ~string](validate func(T) error) func(string) error {
	return func(s string) error { return validate(T(s)) }
}

// The ent schema reads its enum columns from the vocabularies; the generated
// validators are the copy ent writes, and they must accept exactly the
// vocabulary (a stale `go generate ./ent` fails here).
func TestVocabularyEntEnums(t *testing.T) {
	cases := []struct {
		column   string
		vocab    string
		validate func(string) error
	}{
		{"queue_items.type", "queue_type", entEnum(queueitem.TypeValidator)},
		{"inbound_webhooks.kind", "inbound_webhook_kind", entEnum(inboundwebhook.KindValidator)},
		{"inbound_deliveries.outcome", "inbound_delivery_outcome", entEnum(inbounddelivery.OutcomeValidator)},
		{"queue_items.priority", "priority", entEnum(queueitem.PriorityValidator)},
		{"queue_items.status", "queue_status", entEnum(queueitem.StatusValidator)},
		{"queue_items.result_status", "queue_status", entEnum(queueitem.ResultStatusValidator)},
		{"queue_items.task_origin", "task_origin", entEnum(queueitem.TaskOriginValidator)},
		{"cards.status", "card_status", entEnum(card.StatusValidator)},
		{"board_insights.type", "insight_type", entEnum(boardinsight.TypeValidator)},
		{"board_insights.status", "insight_status", entEnum(boardinsight.StatusValidator)},
		{"cards.priority", "priority", entEnum(card.PriorityValidator)},
		{"cards.assignee", "assignee", entEnum(card.AssigneeValidator)},
		{"executions.status", "execution_status", entEnum(execution.StatusValidator)},
		{"executions.task_origin", "task_origin", entEnum(execution.TaskOriginValidator)},
		{"executions.isolation_mode", "isolation_mode", entEnum(execution.IsolationModeValidator)},
		{"executions.run_origin", "run_origin", entEnum(execution.RunOriginValidator)},
		{"executions.review_status", "review_status", entEnum(execution.ReviewStatusValidator)},
		{"executions.payment_hold_status", "payment_hold_status", entEnum(execution.PaymentHoldStatusValidator)},
		{"store_agents.input_format", "input_format", entEnum(storeagent.InputFormatValidator)},
		{"store_agents.auth_method", "auth_method", entEnum(storeagent.AuthMethodValidator)},
		{"store_agents.availability", "availability", entEnum(storeagent.AvailabilityValidator)},
		{"store_agents.status", "listing_status", entEnum(storeagent.StatusValidator)},
		{"capability_packs.status", "listing_status", entEnum(capabilitypack.StatusValidator)},
		{"users.role", "user_role", entEnum(user.RoleValidator)},
		{"user_reputations.task_economy_role", "economy_role", entEnum(userreputation.TaskEconomyRoleValidator)},
		{"agent_quality_signals.signal", "quality_signal", entEnum(agentqualitysignal.SignalValidator)},
		{"connect_tokens.purpose", "token_purpose", entEnum(connecttoken.PurposeValidator)},
		{"federation_instances.health", "instance_health", entEnum(federationinstance.HealthValidator)},
		{"federation_memberships.health", "instance_health", entEnum(federationmembership.HealthValidator)},
		{"federation_audit_logs.direction", "federation_direction", entEnum(federationauditlog.DirectionValidator)},
		{"federation_audit_logs.status", "federation_audit_status", entEnum(federationauditlog.StatusValidator)},
		{"federation_audit_logs.threat_level", "threat_level", entEnum(federationauditlog.ThreatLevelValidator)},
		{"network_connections.status", "connection_status", entEnum(networkconnection.StatusValidator)},
		{"teams.visibility", "team_visibility", entEnum(team.VisibilityValidator)},
		{"settings.profile_visibility", "profile_visibility", entEnum(setting.ProfileVisibilityValidator)},
		{"team_subscriptions.plan", "team_plan", entEnum(teamsubscription.PlanValidator)},
		{"team_subscriptions.status", "subscription_status", entEnum(teamsubscription.StatusValidator)},
		{"team_members.role", "team_role", entEnum(teammember.RoleValidator)},
		{"team_invites.role", "team_role", entEnum(teaminvite.RoleValidator)},
		{"team_invites.status", "invite_status", entEnum(teaminvite.StatusValidator)},
		{"projects.visibility", "project_visibility", entEnum(project.VisibilityValidator)},
		{"projects.status", "project_status", entEnum(project.StatusValidator)},
		{"projects.kind", "project_kind", entEnum(project.KindValidator)},
		{"project_members.role", "project_role", entEnum(projectmember.RoleValidator)},
		{"project_invites.role", "project_role", entEnum(projectinvite.RoleValidator)},
		{"project_invites.status", "invite_status", entEnum(projectinvite.StatusValidator)},
		{"network_connections.direction", "federation_direction", entEnum(networkconnection.DirectionValidator)},
		{"network_connections.trust_level", "trust_level", entEnum(networkconnection.TrustLevelValidator)},
		{"notifications.type", "notification_type", entEnum(notification.TypeValidator)},
		{"learnings.category", "learning_category", entEnum(learning.CategoryValidator)},
		{"jobs.origin", "job_origin", entEnum(job.OriginValidator)},
		{"jobs.task_type", "job_task_type", entEnum(job.TaskTypeValidator)},
		{"jobs.urgency", "job_urgency", entEnum(job.UrgencyValidator)},
		{"jobs.status", "job_status", entEnum(job.StatusValidator)},
		{"provider_capabilities.task_type", "job_task_type", entEnum(providercapability.TaskTypeValidator)},
		{"provider_capabilities.pricing_model", "capability_pricing_model", entEnum(providercapability.PricingModelValidator)},
		{"relays.direction", "federation_direction", entEnum(relay.DirectionValidator)},
		{"relays.type", "relay_type", entEnum(relay.TypeValidator)},
		{"relays.intent", "relay_intent", entEnum(relay.IntentValidator)},
		{"relays.priority", "relay_priority", entEnum(relay.PriorityValidator)},
		{"relays.state", "relay_state", entEnum(relay.StateValidator)},
		{"assistant_messages.role", "assistant_role", entEnum(assistantmessage.RoleValidator)},
		{"card_links.link_type", "card_link_type", entEnum(cardlink.LinkTypeValidator)},
		{"contracts.status", "contract_status", entEnum(entcontract.StatusValidator)},
		{"contracts.hold_status", "contract_hold_status", entEnum(entcontract.HoldStatusValidator)},
		{"contracts.dispute_outcome", "dispute_outcome", entEnum(entcontract.DisputeOutcomeValidator)},
		{"contract_entries.kind", "contract_move", entEnum(contractentry.KindValidator)},
		{"contract_entries.by", "contract_role", entEnum(contractentry.ByValidator)},
		{"contract_amendments.status", "amendment_status", entEnum(contractamendment.StatusValidator)},
		{"jobs.mode", "job_mode", entEnum(job.ModeValidator)},
		{"job_applications.status", "application_status", entEnum(jobapplication.StatusValidator)},
		{"job_applications.task_type", "job_task_type", entEnum(jobapplication.TaskTypeValidator)},
		{"job_applications.pricing_model", "capability_pricing_model", entEnum(jobapplication.PricingModelValidator)},
		{"contract_reviews.by", "contract_role", entEnum(contractreview.ByValidator)},
		{"contract_reviews.visibility", "review_visibility", entEnum(contractreview.VisibilityValidator)},
		{"sprite_settings.animation_speed", "sprite_animation_speed", entEnum(spritesetting.AnimationSpeedValidator)},
		{"sprite_settings.idle_style", "sprite_idle_style", entEnum(spritesetting.IdleStyleValidator)},
		{"sprite_settings.size", "sprite_size", entEnum(spritesetting.SizeValidator)},
	}
	// Every record that holds words the prompt may read says who wrote them.
	for table, validators := range map[string][2]func(string) error{
		"cards":               {entEnum(card.CreatedByValidator), entEnum(card.TextByValidator)},
		"queue_items":         {entEnum(queueitem.CreatedByValidator), entEnum(queueitem.TextByValidator)},
		"checklist_items":     {entEnum(checklistitem.CreatedByValidator), entEnum(checklistitem.TextByValidator)},
		"contacts":            {entEnum(contact.CreatedByValidator), entEnum(contact.TextByValidator)},
		"capability_packs":    {entEnum(capabilitypack.CreatedByValidator), entEnum(capabilitypack.TextByValidator)},
		"capability_installs": {entEnum(capabilityinstall.CreatedByValidator), entEnum(capabilityinstall.TextByValidator)},
		"documents":           {entEnum(document.CreatedByValidator), entEnum(document.TextByValidator)},
		"calendar_events":     {entEnum(calendarevent.CreatedByValidator), entEnum(calendarevent.TextByValidator)},
	} {
		cases = append(cases, struct {
			column, vocab string
			validate      func(string) error
		}{table + ".created_by", "provenance", validators[0]}, struct {
			column, vocab string
			validate      func(string) error
		}{table + ".text_by", "provenance", validators[1]})
	}
	for _, c := range cases {
		for _, v := range vocab.Get(c.vocab).Values {
			if err := c.validate(v); err != nil {
				t.Errorf("%s refuses %q of vocabulary %s: %v", c.column, v, c.vocab, err)
			}
		}
		if err := c.validate("not_a_value"); err == nil {
			t.Errorf("%s accepts a value outside vocabulary %s", c.column, c.vocab)
		}
	}
	// The migration schema is ent's other copy: the enum values it creates
	// columns with, exactly the vocabulary's.
	enums := map[string][]string{}
	for _, table := range migrate.Tables {
		for _, col := range table.Columns {
			if len(col.Enums) > 0 {
				enums[table.Name+"."+col.Name] = col.Enums
			}
		}
	}
	for _, c := range cases {
		if got := enums[c.column]; !slices.Equal(got, vocab.Get(c.vocab).Values) {
			t.Errorf("migration column %s enum = %v, want vocabulary %s %v", c.column, got, c.vocab, vocab.Get(c.vocab).Values)
		}
		delete(enums, c.column)
	}
	// The enum columns left are the server's own states, which the contract
	// does not publish.
	for col := range enums {
		if !slices.Contains([]string{"idempotency_records.state", "payment_holds.status", "ship_gate_runs.trigger", "webhook_deliveries.status", "webhook_deliveries.kind"}, col) {
			t.Errorf("enum column %s is neither a vocabulary nor a known internal state", col)
		}
	}
}

// The OpenAPI document publishes each vocabulary as the enum of its fields
// (null too where the REST form writes null for an absent value).
func TestVocabularyOpenAPIEnums(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "gen", "openapi", "switchboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, f := range taggedFields(t) {
		schema, ok := doc.Components.Schemas[string(f.fd.ContainingMessage().Name())]
		if !ok {
			continue // a message no REST operation uses
		}
		prop, ok := schema.Properties[f.fd.JSONName()]
		if !ok {
			t.Errorf("schema %s lacks property %s", f.fd.ContainingMessage().Name(), f.fd.JSONName())
			continue
		}
		var p struct {
			Enum  []any `json:"enum"`
			Items struct {
				Enum []any `json:"enum"`
			} `json:"items"`
		}
		if err := json.Unmarshal(prop, &p); err != nil {
			t.Fatal(err)
		}
		got := p.Enum
		if f.fd.IsList() {
			got = p.Items.Enum
		}
		var values []string
		for _, v := range got {
			if v == nil {
				continue
			}
			values = append(values, v.(string))
		}
		if !slices.Equal(values, f.set.Values) {
			t.Errorf("OpenAPI %s.%s enum = %v, want vocabulary %s %v", f.fd.ContainingMessage().Name(), f.fd.JSONName(), values, f.set.Name, f.set.Values)
		}
		checked++
	}
	if checked < 30 {
		t.Fatalf("checked only %d properties; the document's shape changed", checked)
	}
}

// The domain packages name single values in their rules; each must be a
// value of its vocabulary.
func TestVocabularyDomainConstants(t *testing.T) {
	cases := map[string][]string{
		"queue_status":   {queue.PendingConfirmation, queue.Ready, queue.InProgress, queue.DoneToday, queue.Blocked, queue.Later},
		"listing_status": {store.StatusPending, store.StatusPendingReview, store.StatusActive, store.StatusRejected, store.StatusDisabled, store.StatusSuspended},
		"service":        {webhooks.ServicePush},
	}
	for name, values := range cases {
		for _, v := range values {
			if !vocab.Get(name).Has(v) {
				t.Errorf("constant %q is not a value of vocabulary %s", v, name)
			}
		}
	}
	if !slices.Equal(kanban.Statuses, vocab.Values("card_status")) || !slices.Equal(queue.Statuses, vocab.Values("queue_status")) {
		t.Error("the board's or the queue's statuses are not their vocabularies")
	}
}

// No hand-written copy: a list literal in the server's Go code or in the
// dashboard's TypeScript that holds every value of a vocabulary (in any
// order) is a second declaration. Subsets are rules ("a callback reports
// completed or failed") and stay.
func TestVocabularyHasNoCopies(t *testing.T) {
	for _, dir := range []string{".", filepath.Join("..", "ent", "schema"), filepath.Join("..", "internal")} {
		for _, lit := range goStringLists(t, dir) {
			if name := copiedVocabulary(lit.values); name != "" {
				t.Errorf("%s: a copy of vocabulary %s; read it with vocab.Values(%q)", lit.at, name, name)
			}
		}
	}
	for _, lit := range tsStringLists(t, filepath.Join("..", "web", "src")) {
		if name := copiedVocabulary(lit.values); name != "" {
			t.Errorf("%s: a copy of vocabulary %s; read it with values(%q) from vocabulary.ts", lit.at, name, name)
		}
	}
	// A const block that spells two or more values of one vocabulary is a
	// second declaration of it, even when it names only a part: name them by
	// the generated constants (internal/vocab/terms.gen.go). In the
	// dashboard, a file's string constants count as one block, and a union
	// type of string literals that holds a whole vocabulary is a copy.
	for _, dir := range []string{".", filepath.Join("..", "internal"), filepath.Join("..", "cmd")} {
		for _, block := range goConstBlocks(t, dir) {
			if name, values := redeclaredVocabulary(block.values); name != "" {
				t.Errorf("%s: a const block re-declares %v of vocabulary %s; use the constants vocabgen generates", block.at, values, name)
			}
		}
	}
	consts, unions := tsConstsAndUnions(t, filepath.Join("..", "web", "src"))
	for _, block := range consts {
		if name, values := redeclaredVocabulary(block.values); name != "" {
			t.Errorf("%s: string constants re-declare %v of vocabulary %s; import them from gen/vocabulary_terms.ts", block.at, values, name)
		}
	}
	for _, u := range unions {
		if name := copiedVocabulary(u.values); name != "" {
			t.Errorf("%s: a union type copies vocabulary %s; use the type of gen/vocabulary_terms.ts", u.at, name)
		}
	}
}

var (
	tsConst = regexp.MustCompile(`(?m)^\s*(?:export\s+)?const\s+\w+(?:\s*:\s*\w+)?\s*=\s*"([^"\n]*)"\s*;`)
	tsUnion = regexp.MustCompile(`"[^"\n]*"(?:\s*\|\s*"[^"\n]*")+`)
)

// tsConstsAndUnions answers, per TypeScript file under root (gen aside), its
// string constants as one list, and each union of string literal types.
func tsConstsAndUnions(t *testing.T, root string) (consts, unions []stringList) {
	t.Helper()
	err := tsSources(root, func(path string, src []byte) {
		var values []string
		for _, m := range tsConst.FindAllStringSubmatch(string(src), -1) {
			values = append(values, m[1])
		}
		consts = append(consts, stringList{path, values})
		for _, m := range tsUnion.FindAllString(string(src), -1) {
			var vs []string
			for _, s := range tsString.FindAllStringSubmatch(m, -1) {
				vs = append(vs, s[1])
			}
			unions = append(unions, stringList{path, vs})
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(consts) == 0 {
		t.Fatalf("no TypeScript under %s; the walk is broken", root)
	}
	return consts, unions
}

// tsSources hands fn each TypeScript file under root, generated code aside.
func tsSources(root string, fn func(path string, src []byte)) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "gen" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".ts") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fn(path, src)
		return nil
	})
}

// redeclaredVocabulary names a vocabulary of which list holds two or more
// values, with those values; "" when none.
func redeclaredVocabulary(list []string) (string, []string) {
	for _, s := range vocab.All() {
		var held []string
		for _, v := range list {
			if s.Has(v) && !slices.Contains(held, v) {
				held = append(held, v)
			}
		}
		if len(held) >= 2 {
			return s.Name, held
		}
	}
	return "", nil
}

// goConstBlocks answers the string literals of each const declaration of the
// hand-written Go code under root.
func goConstBlocks(t *testing.T, root string) []stringList {
	t.Helper()
	var out []stringList
	walkHandWrittenGo(t, root, func(fset *token.FileSet, f *ast.File) {
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			var values []string
			ast.Inspect(gd, func(n ast.Node) bool {
				if bl, ok := n.(*ast.BasicLit); ok && bl.Kind == token.STRING {
					if v, err := strconv.Unquote(bl.Value); err == nil {
						values = append(values, v)
					}
				}
				return true
			})
			out = append(out, stringList{fset.Position(gd.Pos()).String(), values})
		}
	})
	if len(out) == 0 {
		t.Fatalf("no const declarations found under %s; the walk is broken", root)
	}
	return out
}

// walkHandWrittenGo parses every Go file under root that is neither a test,
// a test helper (testdata, servertest) nor generated.
func walkHandWrittenGo(t *testing.T, root string, visit func(*token.FileSet, *ast.File)) {
	t.Helper()
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "servertest") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		if !ast.IsGenerated(f) {
			visit(fset, f)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// statusVocabularies are the sets whose values no hand-written code spells as
// a literal (issue 27): a status is named by its generated constant (or ent's
// enum constant for the column), so a renamed status fails to compile rather
// than silently matching nothing.
var statusVocabularies = []string{"queue_status", "card_status", "relay_state", "execution_status"}

// notStatuses are the literals that equal a status but are no status of
// ours, by file (relative to server/ or web/src/) and value, each with why;
// a new literal in these files still fails.
var notStatuses = map[[2]string]string{
	{"mcp/network.go", "failed"}:               "relay_send's answer field listing the peers that refused",
	{"queue/marketplace.go", "completed"}:      "a key of the capability_executed activity's metadata",
	{"store/dispatch/dispatch.go", "accepted"}: "a dispatch kind: the agent's 202",
	{"store/dispatch/parse.go", "accepted"}:    "a store agent's own word for a task it took",
	{"store/dispatch/parse.go", "queued"}:      "a store agent's own word for a task it took",
	{"store/dispatch/parse.go", "running"}:     "a store agent's own word for a task it took",
	{"store/dispatch/parse.go", "failed"}:      "a store agent's (A2A) word for a task it gave up",
	{"views/settings.ts", "active"}:            "the CSS class of a live API key's chip",
	{"views/inbound.ts", "active"}:             "the CSS class of an enabled inbound webhook's chip",
	{"views/assistant.ts", "failed"}:           "the words shown for a tag that failed without a message",
}

// isStatus reports whether v is a value of one of statusVocabularies.
func isStatus(v string) bool {
	return slices.ContainsFunc(statusVocabularies, func(name string) bool { return vocab.Get(name).Has(v) })
}

// No queue, card, relay or execution status is spelled as a string literal
// in the server's Go code (server/, internal/, cmd/) or the dashboard's
// TypeScript, outside generated code and tests. A word that merely equals a
// status ("completed" said of an A2A task) is named by its own vocabulary's
// constant too, so the check needs no list of exceptions.
func TestNoStatusLiterals(t *testing.T) {
	var found []string
	for _, dir := range []string{".", filepath.Join("..", "internal"), filepath.Join("..", "cmd")} {
		walkHandWrittenGo(t, dir, func(fset *token.FileSet, f *ast.File) {
			tags := map[*ast.BasicLit]bool{}
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.ImportSpec:
					return false
				case *ast.Field:
					// A struct tag is a literal too, but its words are keys.
					tags[n.Tag] = true
				case *ast.BasicLit:
					v, err := strconv.Unquote(n.Value)
					at := fset.Position(n.Pos())
					if n.Kind != token.STRING || err != nil || tags[n] || !isStatus(v) || allowed(dir, at.Filename, v) {
						break
					}
					found = append(found, fmt.Sprintf("%s: %q", at, v))
				}
				return true
			})
		})
	}
	found = append(found, tsStatusLiterals(t, filepath.Join("..", "web", "src"))...)
	for _, at := range found {
		t.Errorf("%s is a status spelled as a literal; name it by its generated constant (vocab.…, or values from web/src/gen/vocabulary_terms.ts)", at)
	}
	if len(found) > 0 {
		t.Logf("%d status literals", len(found))
	}
}

// allowed reports whether notStatuses names value v in file path under root.
func allowed(root, path, v string) bool {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return false
	}
	_, ok := notStatuses[[2]string{filepath.ToSlash(rel), v}]
	return ok
}

// tsLiteral matches a TypeScript string literal without interpolation.
var tsLiteral = regexp.MustCompile(`"([^"\\\n]*)"|'([^'\\\n]*)'|` + "`([^`$\\\\]*)`")

func tsStatusLiterals(t *testing.T, root string) []string {
	t.Helper()
	var found []string
	seen := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "gen" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".ts") || strings.HasSuffix(path, ".test.ts") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		seen++
		for i, line := range strings.Split(string(src), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "//") {
				continue
			}
			for _, m := range tsLiteral.FindAllStringSubmatch(line, -1) {
				if v := m[1] + m[2] + m[3]; isStatus(v) && !allowed(root, path, v) {
					found = append(found, fmt.Sprintf("%s:%d: %q", path, i+1, v))
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen == 0 {
		t.Fatalf("no TypeScript under %s; the walk is broken", root)
	}
	return found
}

type stringList struct {
	at     string
	values []string
}

// copiedVocabulary names the vocabulary of two or more values that list
// holds entirely (and nothing else), "" when none.
func copiedVocabulary(list []string) string {
	if len(list) < 2 {
		return ""
	}
	for _, s := range vocab.All() {
		if len(s.Values) != len(list) {
			continue
		}
		if !slices.ContainsFunc(list, func(v string) bool { return !s.Has(v) }) {
			return s.Name
		}
	}
	return ""
}

func goStringLists(t *testing.T, root string) []stringList {
	t.Helper()
	var out []stringList
	walkHandWrittenGo(t, root, func(fset *token.FileSet, f *ast.File) {
		ast.Inspect(f, func(n ast.Node) bool {
			// A list literal, or a call's arguments (ent's Values("a", "b")).
			var elts []ast.Expr
			switch n := n.(type) {
			case *ast.CompositeLit:
				elts = n.Elts
			case *ast.CallExpr:
				elts = n.Args
			default:
				return true
			}
			var values []string
			for _, e := range elts {
				bl, ok := e.(*ast.BasicLit)
				if !ok || bl.Kind != token.STRING {
					return true
				}
				v, err := strconv.Unquote(bl.Value)
				if err != nil {
					return true
				}
				values = append(values, v)
			}
			out = append(out, stringList{fset.Position(n.Pos()).String(), values})
			return true
		})
	})
	if len(out) == 0 {
		t.Fatalf("no string lists found under %s; the walk is broken", root)
	}
	return out
}

// tsArray matches an array literal of string literals only.
var tsArray = regexp.MustCompile(`\[\s*("[^"\n]*"\s*(?:,\s*"[^"\n]*"\s*)*),?\s*\]`)
var tsString = regexp.MustCompile(`"([^"\n]*)"`)

func tsStringLists(t *testing.T, root string) []stringList {
	t.Helper()
	var out []stringList
	err := tsSources(root, func(path string, src []byte) {
		for _, m := range tsArray.FindAllStringSubmatch(string(src), -1) {
			var values []string
			for _, s := range tsString.FindAllStringSubmatch(m[1], -1) {
				values = append(values, s[1])
			}
			out = append(out, stringList{path, values})
		}
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return out
}

// networkRulesOnly are the operator network's vocabularies (issue 15) that
// server/network/rules reads before the network's contract messages name
// them; each slice that adds a field naming one removes it from here, so the
// check above holds again for it.
var networkRulesOnly = []string{
	// (all named by network_route.proto now)
}
