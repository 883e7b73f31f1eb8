package rules

import (
	"slices"

	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
)

// The relay's enumerated sets, declared once in
// proto/switchboard/v1/vocabulary.proto and read from the descriptors.
var (
	// Types is relay_type: request, response, notification.
	Types = vocab.Get("relay_type")
	// Intents is relay_intent.
	Intents = vocab.Get("relay_intent")
	// Priorities is relay_priority: the sender's words (normal, not medium).
	Priorities = vocab.Get("relay_priority")
	// States is relay_state, in lifecycle order.
	States = vocab.Get("relay_state")
	// FilterReasons is relay_filter_reason.
	FilterReasons = vocab.Get("relay_filter_reason")
	// NotificationTypes is notification_type: document 2's twelve,
	// project_invite and profile_updated; another type is refused (400).
	NotificationTypes = vocab.Get("notification_type")
	// CandidateKinds is route_candidate_kind.
	CandidateKinds = vocab.Get("route_candidate_kind")
	// Strategies is route_strategy.
	Strategies = vocab.Get("route_strategy")
	// Parties is serendipity_party.
	Parties = vocab.Get("serendipity_party")
)

// The single values the rules name; TestConstantsAreVocabulary checks each
// against its vocabulary.
const (
	TypeRequest      = string(vocab.RelayTypeRequest)
	TypeResponse     = string(vocab.RelayTypeResponse)
	TypeNotification = string(vocab.RelayTypeNotification)

	IntentGetInfo         = string(vocab.RelayIntentGetInfo)
	IntentAssignTask      = string(vocab.RelayIntentAssignTask)
	IntentRequestApproval = string(vocab.RelayIntentRequestApproval)
	IntentShareUpdate     = string(vocab.RelayIntentShareUpdate)
	IntentSchedule        = string(vocab.RelayIntentSchedule)
	IntentIntroduce       = string(vocab.RelayIntentIntroduce)
	IntentCustom          = string(vocab.RelayIntentCustom)

	PriorityNormal = string(vocab.RelayPriorityNormal)

	// NotificationProfileUpdated renames the sender as its connection
	// records it.
	NotificationProfileUpdated = string(vocab.NotificationTypeProfileUpdated)

	ReasonTopicFilter     = string(vocab.RelayFilterReasonTopicFilter)
	ReasonQuietHours      = string(vocab.RelayFilterReasonQuietHours)
	ReasonAmbientDisabled = string(vocab.RelayFilterReasonAmbientDisabled)

	CandidateConnection = string(vocab.RouteCandidateKindConnection)
	CandidateStoreAgent = string(vocab.RouteCandidateKindStoreAgent)

	StrategyDirect    = string(vocab.RouteStrategyDirect)
	StrategyAuction   = string(vocab.RouteStrategyAuction)
	StrategyBroadcast = string(vocab.RouteStrategyBroadcast)

	PartyContact    = string(vocab.SerendipityPartyContact)
	PartyConnection = string(vocab.SerendipityPartyConnection)
)

// The trust levels of a connection (RULINGS: untrusted, known by default,
// trusted; set by their owner only): the values of the vocabulary
// trust_level, named for the trust factor (TestTrustLevelsAreTheVocabulary).
const (
	TrustUntrusted = string(vocab.TrustLevelUntrusted)
	TrustKnown     = string(vocab.TrustLevelKnown)
	TrustTrusted   = string(vocab.TrustLevelTrusted)
)

// ambientIntents are the intents that make a relay ambient whatever its
// type (RULINGS: notification, or intents share_update, introduce).
var ambientIntents = []string{IntentShareUpdate, IntentIntroduce}

// Handling is how the recipient takes a relay.
type Handling uint8

// The handlings of a relay.
const (
	// AsItem becomes a pending_confirmation item in the recipient's queue.
	AsItem Handling = iota + 1
	// AsAmbient passes the recipient's preferences and becomes a comms message.
	AsAmbient
	// AsReply is a response relay: it joins its thread as a comms message.
	AsReply
)

// Classify answers how the recipient takes a relay of this type and intent.
// Ambient wins over request: a request-typed relay with intent share_update
// is an update, not work to approve. A response is a reply whatever its
// intent. An empty type is a request (the schema makes every field optional,
// and a relay that asks for nothing in particular is most safely put in front
// of the operator for approval). Unknown values are refused, naming the field.
func Classify(relayType, intent string) (Handling, error) {
	if relayType != "" && !Types.Has(relayType) {
		return 0, oneOf("type", relayType, Types)
	}
	if intent != "" && !Intents.Has(intent) {
		return 0, oneOf("intent", intent, Intents)
	}
	switch {
	case relayType == TypeResponse:
		return AsReply, nil
	case relayType == TypeNotification || slices.Contains(ambientIntents, intent):
		return AsAmbient, nil
	}
	return AsItem, nil
}

// The payload kinds of invites over the network (issue 28): an invite is
// never ambient (no filter, no quiet hours), it always becomes the
// recipient's queue item, whatever its intent (RULINGS "Teams, projects,
// invites, profiles", details).
// They are the words of the notifications that announce them.
const (
	PayloadProjectInvite = string(vocab.NotificationTypeProjectInvite)
	PayloadTeamInvite    = string(vocab.NotificationTypeTeamInvite)
)

// IsInvite says whether a relay payload's kind is an invite's.
func IsInvite(kind string) bool { return kind == PayloadProjectInvite || kind == PayloadTeamInvite }

// QueuePriority maps a relay's priority to the queue's (RULINGS: normal is
// medium; low, high and urgent are the same words). Empty is normal, so
// medium. Another value is refused naming the field.
func QueuePriority(p string) (string, error) {
	switch {
	case p == "" || p == PriorityNormal:
		return "medium", nil
	case Priorities.Has(p):
		return p, nil
	}
	return "", oneOf("priority", p, Priorities)
}

// CheckNotificationType refuses a type outside notification_type.
func CheckNotificationType(t string) error {
	if NotificationTypes.Has(t) {
		return nil
	}
	return oneOf("type", t, NotificationTypes)
}

func oneOf(field, value string, s *vocab.Set) error {
	return apperr.OneOf(field, value, s.Values)
}
