// Package manifests checks the container deployment (docker-compose.yml and
// the kustomize overlays under k8s/) against the code it deploys: the
// service registry, each binary's configuration and deploy/Dockerfile. It
// has no production code; its tests run in `make test`, with no cluster,
// no Docker engine and no network.
package manifests

import (
	"reflect"
	"time"

	gateway "github.com/kycfield/kyc/gateway/app"
	authbilling "github.com/kycfield/kyc/services/auth-billing/app"
	customer "github.com/kycfield/kyc/services/customer/app"
	document "github.com/kycfield/kyc/services/document/app"
	reporting "github.com/kycfield/kyc/services/reporting/app"
	verification "github.com/kycfield/kyc/services/verification/app"
	webhook "github.com/kycfield/kyc/services/webhook/app"
)

// Var is one environment variable a binary's configuration reads.
type Var struct {
	Name       string
	Default    string
	HasDefault bool
	Secret     bool
}

// Configs maps each component of the registry (stack.All) to a zero value
// of the configuration struct its Run loads.
var Configs = map[string]any{
	"auth-billing": authbilling.Config{},
	"customer":     customer.Config{},
	"document":     document.Config{},
	"verification": verification.Config{},
	"reporting":    reporting.Config{},
	"webhook":      webhook.Config{},
	"gateway":      gateway.Config{},
}

// Vars lists the environment variables cfg (a config struct value) reads,
// walking embedded and nested structs the way pkg/config does.
func Vars(cfg any) []Var {
	var out []Var
	walk(reflect.TypeOf(cfg), &out)
	return out
}

func walk(t reflect.Type, out *[]Var) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name := f.Tag.Get("env")
		if f.Type.Kind() == reflect.Struct && name == "" && f.Type != reflect.TypeOf(time.Time{}) {
			walk(f.Type, out)
			continue
		}
		if name == "" {
			continue
		}
		def, has := f.Tag.Lookup("envDefault")
		*out = append(*out, Var{Name: name, Default: def, HasDefault: has, Secret: f.Tag.Get("secret") == "true"})
	}
}
