// Package keys owns the account's API keys: created and listed from a dashboard
// session, shown once, stored only as a hash, deactivated rather than erased.
package keys

import (
	"context"
	"slices"
	"strings"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/switchboard-hq/switchboard/ent"
	"github.com/switchboard-hq/switchboard/ent/apikey"
	switchboardv1 "github.com/switchboard-hq/switchboard/gen/switchboard/v1"
	"github.com/switchboard-hq/switchboard/internal/db"
	"github.com/switchboard-hq/switchboard/internal/lists"
	"github.com/switchboard-hq/switchboard/internal/vocab"
	"github.com/switchboard-hq/switchboard/server/apperr"
	"github.com/switchboard-hq/switchboard/server/auth"
)

// Scopes a key can be limited to (docs/decisions.md "Accounts, keys, sessions").
var Scopes = vocab.Values("key_scope")

// maxKeysListed bounds the list; an account with more keys than this has a leak.
const maxKeysListed = 500

// Created is published in the unit of work that makes one of an account's
// keys (onboarding's first step hears it).
type Created struct{ UserID, KeyID string }

// Service implements KeyService.
type Service struct {
	DB  *db.DB
	Now func() time.Time
}

// ListKeys lists the caller's keys, newest first.
func (s *Service) ListKeys(ctx context.Context, _ *switchboardv1.ListKeysRequest) (*switchboardv1.ListKeysResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	ks, err := s.DB.APIKey.Query().Where(apikey.UserID(p.UserID)).
		Order(ent.Desc(apikey.FieldCreatedAt), ent.Desc(apikey.FieldID)).Limit(maxKeysListed).All(ctx)
	if err != nil {
		return nil, err
	}
	return &switchboardv1.ListKeysResponse{Keys: lists.Map(ks, toProtoKey)}, nil
}

func normaliseScopes(in []string) ([]string, error) {
	out := make([]string, 0, len(in))
	for _, sc := range in {
		sc = strings.TrimSpace(sc)
		if !slices.Contains(Scopes, sc) {
			return nil, apperr.Invalid("unknown scope %q; scopes are %s", sc, strings.Join(Scopes, ", "))
		}
		if !slices.Contains(out, sc) {
			out = append(out, sc)
		}
	}
	slices.Sort(out)
	return out, nil
}

// CreateKey makes a key and answers its value once.
func (s *Service) CreateKey(ctx context.Context, req *switchboardv1.CreateKeyRequest) (*switchboardv1.CreateKeyResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	label := strings.TrimSpace(req.GetLabel())
	// Its length is the contract's (500 characters).
	if label == "" {
		return nil, apperr.Invalid("label is required")
	}
	scopes, err := normaliseScopes(req.GetScopes())
	if err != nil {
		return nil, err
	}
	var expires *time.Time
	if req.ExpiresAt != nil {
		if err := req.GetExpiresAt().CheckValid(); err != nil {
			return nil, apperr.Invalid("expiresAt is not a valid time")
		}
		exp := req.GetExpiresAt().AsTime()
		if !exp.After(s.Now()) {
			return nil, apperr.Invalid("expiresAt must be in the future")
		}
		expires = &exp
	}
	value, prefix, hash := auth.NewAPIKey()
	k, err := db.InTxValue(ctx, s.DB, func(tx *db.Tx) (*ent.APIKey, error) {
		k, err := tx.APIKey.Create().SetUserID(p.UserID).SetLabel(label).SetScopes(scopes).
			SetNillableExpiresAt(expires).SetPrefix(prefix).SetKeyHash(hash).Save(ctx)
		if err != nil {
			return nil, err
		}
		return k, tx.Publish(ctx, Created{UserID: p.UserID, KeyID: k.ID})
	})
	if err != nil {
		return nil, err
	}
	return &switchboardv1.CreateKeyResponse{ApiKey: value, Key: toProtoKey(k)}, nil
}

// DeleteKey deactivates one of the caller's keys.
func (s *Service) DeleteKey(ctx context.Context, req *switchboardv1.DeleteKeyRequest) (*switchboardv1.DeleteKeyResponse, error) {
	p, err := auth.RequirePrincipal(ctx)
	if err != nil {
		return nil, err
	}
	n, err := s.DB.APIKey.Update().Where(apikey.ID(req.GetId()), apikey.UserID(p.UserID)).SetActive(false).Save(ctx)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, apperr.NotFound("API key %q not found", req.GetId())
	}
	if err := s.DB.Publish(ctx, auth.CredentialEnded{Credential: auth.Credential{KeyID: req.GetId()}}); err != nil {
		return nil, apperr.Internal(err)
	}
	k, err := s.DB.APIKey.Get(ctx, req.GetId())
	if err != nil {
		return nil, err
	}
	return &switchboardv1.DeleteKeyResponse{Key: toProtoKey(k)}, nil
}

func toProtoKey(k *ent.APIKey) *switchboardv1.ApiKey {
	out := &switchboardv1.ApiKey{
		Id: k.ID, Label: k.Label, Scopes: k.Scopes, Prefix: k.Prefix,
		CreatedAt: timestamppb.New(k.CreatedAt), Active: k.Active,
	}
	if out.Scopes == nil {
		out.Scopes = []string{}
	}
	if k.LastUsedAt != nil {
		out.LastUsedAt = timestamppb.New(*k.LastUsedAt)
	}
	if k.ExpiresAt != nil {
		out.ExpiresAt = timestamppb.New(*k.ExpiresAt)
	}
	return out
}
