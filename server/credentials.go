package server

import (
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/gen/switchboard/v1/switchboardv1connect"
	"github.com/switchboard-hq/switchboard/server/gate"
)

// checkCredentials is the one table of the public procedures whose handlers
// read a credential of their own (a platform token, the hub's secret, a
// peer's federation token, a developer key): the gate checks it before the
// body or query is read, on both transports, so no handler can answer 400
// before 401 (RULINGS "Credentials before bodies"; the operator network's
// switch and a standalone's "not a hub" come first, as the handlers' checks
// order them). A public procedure missing here reads no credential before
// its body (TestCredentialsBeforeBodies lists those).
func checkCredentials(g *gate.Gate, s services) {
	hub, spoke, net, dev := s.platform, s.inbound, s.peers, s.dev
	// What each check reads; gate.Check holds it to the contract's rule.
	var (
		platform  = []switchboardv1.Credential{switchboardv1.Credential_CREDENTIAL_PLATFORM_TOKEN}
		instance  = []switchboardv1.Credential{switchboardv1.Credential_CREDENTIAL_INSTANCE_KEY}
		peer      = []switchboardv1.Credential{switchboardv1.Credential_CREDENTIAL_FEDERATION_TOKEN}
		developer = []switchboardv1.Credential{switchboardv1.Credential_CREDENTIAL_DEVELOPER_KEY, switchboardv1.Credential_CREDENTIAL_CONNECT_TOKEN}
		none      []switchboardv1.Credential
	)
	const (
		hubSvc      = "/" + switchboardv1connect.FederationHubServiceName + "/"
		marketSvc   = "/" + switchboardv1connect.FederationMarketServiceName + "/"
		platformSvc = "/" + switchboardv1connect.FederationPlatformServiceName + "/"
		peerSvc     = "/" + switchboardv1connect.NetworkPeerServiceName + "/"
		exchangeSvc = "/" + switchboardv1connect.NetworkExchangePeerServiceName + "/"
		relaySvc    = "/" + switchboardv1connect.NetworkRelayPeerServiceName + "/"
		shareSvc    = "/" + switchboardv1connect.NetworkSharePeerServiceName + "/"
		economySvc  = "/" + switchboardv1connect.EconomyPeerServiceName + "/"
		devSvc      = "/" + switchboardv1connect.DeveloperServiceName + "/"
		profileSvc  = "/" + switchboardv1connect.ProfileServiceName + "/"
	)
	// The hub's routes for its spokes: the platform token (a deactivated
	// instance may still report its health, leave and deliver results).
	g.Check(platform, hub.PlatformCheck("heartbeat", true), hubSvc+"Heartbeat")
	g.Check(platform, hub.PlatformCheck("rotate", false), hubSvc+"RotatePlatformToken")
	g.Check(platform, hub.PlatformCheck("leave", true), hubSvc+"LeaveHub")
	g.Check(platform, hub.PlatformCheck("marketplace-link", false), hubSvc+"MarketplaceLink")
	g.Check(platform, hub.PlatformCheck("agents", false), hubSvc+"SyncAgents", hubSvc+"ListSyncedAgents",
		hubSvc+"PutSyncedAgent", hubSvc+"GetSyncedAgent", hubSvc+"DeleteSyncedAgent")
	g.Check(platform, hub.PlatformCheck("capabilities", false), hubSvc+"SyncCapabilities", hubSvc+"ListSyncedCapabilities")
	g.Check(platform, hub.PlatformCheck("marketplace/execute", false), marketSvc+"ExecuteGlobalListing")
	g.Check(platform, hub.PlatformCheck("marketplace/review", false), marketSvc+"ReviewGlobalExecution")
	g.Check(platform, hub.PlatformCheck("result", true), "/"+switchboardv1connect.FederationResultServiceName+"/DeliverFederationResult")
	g.Check(platform, hub.PlatformCheck("validate-payment", false), platformSvc+"ValidatePayment")
	g.Check(platform, hub.PlatformCheck("prompt-groups", false), platformSvc+"ListPromptGroups")
	g.Check(platform, hub.DiscoverCheck, platformSvc+"DiscoverNetwork")
	// The spoke's routes for its hub: this instance's secret.
	g.Check(instance, spoke.HubCheck("execute"), "/"+switchboardv1connect.FederationSpokeServiceName+"/Execute")
	g.Check(instance, spoke.HubCheck("deliveries"), "/"+switchboardv1connect.FederationDeliveryServiceName+"/DeliverGlobalResult")
	// The operator network's peers: the switch, then the connection's token.
	g.Check(none, net.SwitchCheck, peerSvc+"ReceiveConnection")
	g.Check(peer, net.PeerCheck("connect/accept"), peerSvc+"ConfirmConnection")
	g.Check(peer, net.PeerCheck("connections/remove"), peerSvc+"DropConnection")
	g.Check(peer, net.PeerCheck("connections/rotate"), peerSvc+"ReplacePeerToken")
	g.Check(peer, net.PeerCheck("relay"), relaySvc+"ReceiveRelay")
	g.Check(peer, net.PeerCheck("relay-ack"), relaySvc+"AckRelay")
	g.Check(peer, net.PeerCheck("notifications"), exchangeSvc+"ReceiveNotification")
	g.Check(peer, net.PeerCheck("mentions"), exchangeSvc+"SearchNetworkMentions")
	g.Check(peer, net.PeerCheck("jobs"), exchangeSvc+"ReceiveJob", exchangeSvc+"ListSharedJobs")
	g.Check(peer, net.PeerCheck("reputation"), shareSvc+"RateRelay")
	g.Check(peer, net.PeerCheck("entity-search"), shareSvc+"SearchSharedEntities")
	g.Check(peer, net.PeerCheck("mcp"), shareSvc+"CallSharedTool")
	g.Check(peer, net.PeerCheck("card-status"), shareSvc+"ReceiveCardStatus")
	// The task economy's moves ride on a connection too (its handler asks
	// network.Core.FromPeer on the same route name).
	g.Check(peer, net.PeerCheck("economy/moves"), economySvc+"ReceiveContractMove")
	g.Check(peer, net.PeerCheck("economy/applications"), economySvc+"ReceiveJobApplication")
	g.Check(peer, net.PeerCheck("economy/application-outcomes"), economySvc+"ReceiveApplicationOutcome")
	// The profile pages: anyone, but a presented peer token must be live.
	g.Check(peer, net.OptionalPeer("profiles"), profileSvc+"GetProfile", profileSvc+"GetTeamProfile")
	// The developer portal's agent routes: a developer key or connect token
	// (the test run also takes the agent's self-config token).
	g.Check(developer, dev.CredentialCheck(false), devSvc+"RegisterDeveloperAgent", devSvc+"UpdateDeveloperAgent")
	g.Check(developer, dev.CredentialCheck(true), devSvc+"RunDeveloperAgentTest")
	// The outside scheduler's scan: the cron secret (404 when none is set).
	g.Check([]switchboardv1.Credential{switchboardv1.Credential_CREDENTIAL_CRON_SECRET}, s.board.CronCheck,
		"/"+switchboardv1connect.CronServiceName+"/CortexScan")
}
