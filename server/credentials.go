package server

import (
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
	const (
		hubSvc      = "/" + switchboardv1connect.FederationHubServiceName + "/"
		marketSvc   = "/" + switchboardv1connect.FederationMarketServiceName + "/"
		platformSvc = "/" + switchboardv1connect.FederationPlatformServiceName + "/"
		peerSvc     = "/" + switchboardv1connect.NetworkPeerServiceName + "/"
		exchangeSvc = "/" + switchboardv1connect.NetworkExchangePeerServiceName + "/"
		relaySvc    = "/" + switchboardv1connect.NetworkRelayPeerServiceName + "/"
		shareSvc    = "/" + switchboardv1connect.NetworkSharePeerServiceName + "/"
		devSvc      = "/" + switchboardv1connect.DeveloperServiceName + "/"
	)
	// The hub's routes for its spokes: the platform token (a deactivated
	// instance may still report its health, leave and deliver results).
	g.Check(hub.PlatformCheck("heartbeat", true), hubSvc+"Heartbeat")
	g.Check(hub.PlatformCheck("rotate", false), hubSvc+"RotatePlatformToken")
	g.Check(hub.PlatformCheck("leave", true), hubSvc+"LeaveHub")
	g.Check(hub.PlatformCheck("marketplace-link", false), hubSvc+"MarketplaceLink")
	g.Check(hub.PlatformCheck("agents", false), hubSvc+"SyncAgents", hubSvc+"ListSyncedAgents",
		hubSvc+"PutSyncedAgent", hubSvc+"GetSyncedAgent", hubSvc+"DeleteSyncedAgent")
	g.Check(hub.PlatformCheck("capabilities", false), hubSvc+"SyncCapabilities", hubSvc+"ListSyncedCapabilities")
	g.Check(hub.PlatformCheck("marketplace/execute", false), marketSvc+"ExecuteGlobalListing")
	g.Check(hub.PlatformCheck("marketplace/review", false), marketSvc+"ReviewGlobalExecution")
	g.Check(hub.PlatformCheck("result", true), "/"+switchboardv1connect.FederationResultServiceName+"/DeliverFederationResult")
	g.Check(hub.PlatformCheck("validate-payment", false), platformSvc+"ValidatePayment")
	g.Check(hub.PlatformCheck("prompt-groups", false), platformSvc+"ListPromptGroups")
	g.Check(hub.DiscoverCheck, platformSvc+"DiscoverNetwork")
	// The spoke's routes for its hub: this instance's secret.
	g.Check(spoke.HubCheck("execute"), "/"+switchboardv1connect.FederationSpokeServiceName+"/Execute")
	g.Check(spoke.HubCheck("deliveries"), "/"+switchboardv1connect.FederationDeliveryServiceName+"/DeliverGlobalResult")
	// The operator network's peers: the switch, then the connection's token.
	g.Check(net.SwitchCheck, peerSvc+"ReceiveConnection")
	g.Check(net.PeerCheck("connect/accept"), peerSvc+"ConfirmConnection")
	g.Check(net.PeerCheck("connections/remove"), peerSvc+"DropConnection")
	g.Check(net.PeerCheck("connections/rotate"), peerSvc+"ReplacePeerToken")
	g.Check(net.PeerCheck("relay"), relaySvc+"ReceiveRelay")
	g.Check(net.PeerCheck("relay-ack"), relaySvc+"AckRelay")
	g.Check(net.PeerCheck("notifications"), exchangeSvc+"ReceiveNotification")
	g.Check(net.PeerCheck("mentions"), exchangeSvc+"SearchNetworkMentions")
	g.Check(net.PeerCheck("jobs"), exchangeSvc+"ReceiveJob", exchangeSvc+"ListSharedJobs")
	g.Check(net.PeerCheck("reputation"), shareSvc+"RateRelay")
	g.Check(net.PeerCheck("entity-search"), shareSvc+"SearchSharedEntities")
	g.Check(net.PeerCheck("mcp"), shareSvc+"CallSharedTool")
	g.Check(net.PeerCheck("card-status"), shareSvc+"ReceiveCardStatus")
	// The developer portal's agent routes: a developer key or connect token
	// (the test run also takes the agent's self-config token).
	g.Check(dev.CredentialCheck(false), devSvc+"RegisterDeveloperAgent", devSvc+"UpdateDeveloperAgent")
	g.Check(dev.CredentialCheck(true), devSvc+"RunDeveloperAgentTest")
}
