package accounts

import (
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
)

func toProtoUser(u *ent.User) *switchboardv1.User {
	return &switchboardv1.User{
		Id: u.ID, Username: u.Username, Email: u.Email, Name: u.Name,
		Role: string(u.Role), Avatar: u.Avatar, CreatedAt: timestamppb.New(u.CreatedAt),
	}
}
