package toolregistry

import (
	"encoding/json"
	"fmt"
)

// StrictSchemas is Registry.StrictSchemas' answer: the schemas in OpenAI strict mode, and the
// tools that could not be made strict.
type StrictSchemas struct {
	// Tools holds every selected tool's schema, as Registry.Schemas would order them: strict
	// ones carry "strict": true; those named in Warnings are in their non-strict form.
	Tools []json.RawMessage `json:"tools"`
	// Warnings names each tool whose schema cannot be strict without changing its meaning (an
	// object taking arbitrary keys, a value without a type, ...), in the order of Tools.
	Warnings []SchemaWarning `json:"warnings"`
}

// SchemaWarning names a tool that strict mode could not apply to, and says why.
type SchemaWarning struct {
	Name string `json:"name"`
	// Reason points at the part of the schema that is in the way, e.g.
	// `settings: an object without "properties" takes arbitrary keys`.
	Reason string `json:"reason"`
}

// StrictSchemas is Schemas in OpenAI strict mode (opts.Strict is implied): every schema that
// can be strict is, and the others are returned non-strict and named in Warnings, never left
// out. Only OpenAIChat (the default) and OpenAIResponses have a strict mode; another APIFormat
// is ErrInvalidArgument.
func (r *Registry) StrictSchemas(opts SchemaOptions) (*StrictSchemas, error) {
	opts.Strict = true
	out, err := r.schemasJSON(opts)
	if err != nil {
		return nil, err
	}
	var set StrictSchemas
	if err := json.Unmarshal(out, &set); err != nil {
		return nil, fmt.Errorf("toolregistry: decoding strict schemas: %w", err)
	}
	return &set, nil
}
