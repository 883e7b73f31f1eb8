package peers

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/networkconnection"
	"github.com/switchboard-hq/switchboard/ent/user"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/server/profiles"
)

// MentionLimit caps the peers' mention search (document 2 "Limits":
// mention search (federation) up to 10 results).
const MentionLimit = 10

// SearchNetworkMentions answers the users of this instance visible to the
// calling peer whose username or name starts with prefix (ASCII case
// folded), by username. Visible to the network means holding an active
// connection with a user of the caller's instance (docs/decisions.md "The
// operator network: notifications, patterns and jobs"): a user who never
// joined that instance's network is not shown to it, nor is one whose
// profileVisibility is private (RULINGS "Who a peer's mention search sees").
func (s *Service) SearchNetworkMentions(ctx context.Context, req *switchboardv1.SearchNetworkMentionsRequest) (*switchboardv1.SearchNetworkMentionsResponse, error) {
	row, err := s.core.FromActivePeer(ctx, "mentions", nil)
	if err != nil {
		return nil, err
	}
	prefix := strings.ToLower(strings.TrimSpace(req.GetPrefix()))
	users, err := s.core.DB.User.Query().Where(user.HasNetworkConnectionsWith(
		networkconnection.PeerInstanceURL(row.PeerInstanceURL), networkconnection.StatusEQ(networkconnection.StatusActive)),
		profiles.UsersSeen(profiles.Network)).
		All(ctx)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(users, func(a, b *ent.User) int { return cmp.Compare(a.Username, b.Username) })
	out := &switchboardv1.SearchNetworkMentionsResponse{Users: []*switchboardv1.NetworkMentionUser{}}
	for _, u := range users {
		if len(out.Users) == MentionLimit {
			break
		}
		if prefix != "" && !strings.HasPrefix(strings.ToLower(u.Username), prefix) && !strings.HasPrefix(strings.ToLower(u.Name), prefix) {
			continue
		}
		out.Users = append(out.Users, &switchboardv1.NetworkMentionUser{Id: u.ID, Username: u.Username, Name: u.Name, Avatar: u.Avatar})
	}
	return out, nil
}
