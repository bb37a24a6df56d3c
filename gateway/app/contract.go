package app

import (
	"time"

	"github.com/kycfield/kyc/gateway/internal/refusal"
	"github.com/kycfield/kyc/gateway/internal/usage"
	"github.com/kycfield/kyc/pkg/apikey"
	"github.com/kycfield/kyc/pkg/event"
	"github.com/kycfield/kyc/pkg/principal"
)

// contract is the gateway's side of the event contracts: the usage
// reports it publishes, and the key and organization states it reads from
// auth-events into its caches.
func contract() event.Contract {
	return event.Contract{
		Samples: func() []event.Sample {
			at := time.Date(2026, 11, 23, 9, 15, 0, 0, time.UTC)
			e, err := usage.Event("org_019a2b3c4d5e6f708192a3b4c5d6e7f8", usage.Report{Day: "2026-11-23", Requests: 1234,
				Keys: map[string]time.Time{"key_019a2b3c4d5e6f708192a3b4c5d6e7f8": at}})
			if err != nil {
				panic(err) // a fixed value that cannot be marshalled is a programming error
			}
			// A viewer's refused webhook creation, as the edge records it.
			viewer := principal.Principal{Kind: principal.KindAPIKey, OrgID: "org_019a2b3c4d5e6f708192a3b4c5d6e7f8", Env: principal.EnvTest,
				UserID: "usr_019a2b3c4d5e6f708192a3b4c5d6e7f8", MemberRole: principal.MemberViewer, ClientIP: "192.0.2.30"}
			refused, err := refusal.Event(viewer, "endpoint.create", "POST", "/api/v1/webhooks", at)
			if err != nil {
				panic(err)
			}
			return []event.Sample{{Topic: event.TopicGatewayUsage, Event: e}, {Topic: event.TopicOrgAudit, Event: refused}}
		},
		Reads: []event.Read{
			{Type: apikey.EventKeyCreated, Into: apikey.State{}}, {Type: apikey.EventKeyChanged, Into: apikey.State{}},
			{Type: apikey.EventOrgCreated, Into: apikey.OrgState{}}, {Type: apikey.EventPlanChanged, Into: apikey.OrgState{}},
		},
	}
}
