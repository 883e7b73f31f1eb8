package openapi

// addIdempotency documents the Idempotency-Key header on an operation that
// takes it, and the Idempotent-Replayed header on its success answer
// (docs/decisions.md, "Idempotency").
func addIdempotency(op, success *object) {
	params, _ := op.get("parameters")
	list, _ := params.([]any)
	op.set("parameters", append(list, obj(
		"name", "Idempotency-Key",
		"in", "header",
		"description", "Makes a retry safe: the first answer for this key (per API key or session) is stored for 24 hours "+
			"and answered again, with Idempotent-Replayed: true, to a retry of the same request; the same key with "+
			"a different request is 422, and a retry while the first still runs is 409.",
		"required", false,
		"schema", obj("type", "string", "minLength", 1, "maxLength", 255, "pattern", "^[ -~]+$"),
	)))
	success.ensure("headers").set("Idempotent-Replayed", obj(
		"description", "true when this is the stored answer of an earlier request with the same Idempotency-Key.",
		"schema", obj("type", "string", "enum", []any{"true"}),
	))
	success.order("description", "headers", "content")
}
