// Package ent holds the generated data access code; the model is in ent/schema.
package ent

//go:generate go tool ent generate --feature sql/lock,sql/upsert,sql/execquery,sql/versioned-migration ./schema
