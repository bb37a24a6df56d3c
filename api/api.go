// Package api embeds the OpenAPI description of the public API, so the
// gateway serves exactly the document in this folder.
package api

import _ "embed"

// OpenAPI is api/openapi.yaml.
//
//go:embed openapi.yaml
var OpenAPI []byte
