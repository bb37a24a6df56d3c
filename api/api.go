// Package api embeds the platform's published contracts: the OpenAPI
// description of the public API, which the gateway serves as it is, and
// the JSON Schemas of the events on every Kafka topic (events/<topic>.json,
// with the data of each event type under $defs; events/envelope.json for
// the envelope all of them share).
package api

import (
	"embed"
)

// OpenAPI is api/openapi.yaml.
//
//go:embed openapi.yaml
var OpenAPI []byte

// EventSchemas holds events/*.json.
//
//go:embed events/*.json
var EventSchemas embed.FS
