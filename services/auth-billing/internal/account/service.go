package account

import (
	"context"
	"encoding/hex"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kycfield/kyc/pkg/apikey"
	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/ids"
	"github.com/kycfield/kyc/pkg/principal"
)

// Event types published on the auth topic (the gateway's contract).
const (
	EventOrgCreated  = apikey.EventOrgCreated
	EventPlanChanged = apikey.EventPlanChanged
	EventKeyCreated  = apikey.EventKeyCreated
	EventKeyChanged  = apikey.EventKeyChanged
)

// Service holds the use cases of organizations and keys.
type Service struct {
	store Store
	now   func() time.Time
}

// NewService returns a Service.
func NewService(s Store, now func() time.Time) *Service {
	return &Service{store: s, now: now}
}

// OrgState is the organization as the gateway caches it (the shared
// contract: its plan's limits, not its prices).
type OrgState = apikey.OrgState

// KeyState is a key as the gateway caches it (the shared contract).
type KeyState = apikey.State

// StateOf returns the cacheable view of an organization, with its
// operations settings (every organization event carries them, so a
// consumer that missed settings_changed still learns them).
func StateOf(o Org) OrgState {
	p := Plans[o.Plan]
	o = withDefaultSettings(o)
	return OrgState{ID: o.ID, Name: o.Name, Version: o.Version, ReviewPolicy: o.ReviewPolicy, SLAHours: o.SLAHours,
		Plan: apikey.Plan{ID: p.ID, DailyRequests: p.DailyRequests, TestRecordLimit: p.TestRecordLimit, LiveAccess: p.LiveAccess}}
}

// KeyStateOf returns the cacheable view of a key.
func KeyStateOf(k Key) KeyState {
	return KeyState{ID: k.ID, Hash: hex.EncodeToString(k.Hash), OrgID: k.OrgID, Env: k.Env, Scopes: k.Scopes,
		ExpiresAt: k.ExpiresAt, Revoked: k.RevokedAt != nil, Version: k.Version}
}

// CreateOrg creates an organization on plan.
func (s *Service) CreateOrg(ctx context.Context, name, plan string) (Org, error) {
	name = strings.TrimSpace(name)
	if n := utf8.RuneCountInString(name); n < 2 || n > 100 {
		return Org{}, apperr.Validation(apperr.Detail{Field: "name", Message: "must be 2-100 characters"})
	}
	if plan == "" {
		plan = PlanDeveloper
	}
	if _, err := LookupPlan(plan); err != nil {
		return Org{}, err
	}
	now := s.now().UTC()
	o := withDefaultSettings(Org{ID: ids.New("org"), Name: name, Plan: plan, Version: 1, CreatedAt: now, UpdatedAt: now})
	err := s.store.Atomic(ctx, func(tx Tx) error {
		if err := tx.InsertOrg(ctx, o); err != nil {
			return err
		}
		if err := tx.StartPlanPeriod(ctx, o.ID, plan, now); err != nil {
			return err
		}
		return tx.Emit(ctx, Change{Type: EventOrgCreated, OrgID: o.ID, Data: StateOf(o)})
	})
	return o, err
}

// Org returns an organization.
func (s *Service) Org(ctx context.Context, id string) (Org, error) {
	var o Org
	err := s.store.Atomic(ctx, func(tx Tx) (err error) {
		o, err = tx.Org(ctx, id, false)
		return err
	})
	return o, err
}

// ChangePlan moves an organization to plan, effective immediately.
func (s *Service) ChangePlan(ctx context.Context, orgID, plan string) (Org, error) {
	if _, err := LookupPlan(plan); err != nil {
		return Org{}, err
	}
	var o Org
	err := s.store.Atomic(ctx, func(tx Tx) (err error) {
		if o, err = tx.Org(ctx, orgID, true); err != nil {
			return err
		}
		if o.Plan == plan {
			return nil
		}
		previous := o.Plan
		now := s.now().UTC()
		o.Plan, o.Version, o.UpdatedAt = plan, o.Version+1, now
		if err := tx.UpdateOrg(ctx, o); err != nil {
			return err
		}
		if err := tx.StartPlanPeriod(ctx, o.ID, plan, now); err != nil {
			return err
		}
		if err := tx.Emit(ctx, Change{Type: EventPlanChanged, OrgID: o.ID, Data: StateOf(o)}); err != nil {
			return err
		}
		return auditDone(ctx, tx, "plan.change", o.ID, "", map[string]any{"plan": plan, "previousPlan": previous})
	})
	return o, err
}

// NewKey is a created key with its secret, which is shown only once.
type NewKey struct {
	Key
	Secret string `json:"key"`
}

// CreateKey issues a key. Live keys need a plan with live access.
func (s *Service) CreateKey(ctx context.Context, orgID, env string, scopes []string, name string) (NewKey, error) {
	e, err := ValidateEnv(env)
	if err != nil {
		return NewKey{}, err
	}
	sc, err := ValidateScopes(scopes)
	if err != nil {
		return NewKey{}, err
	}
	if utf8.RuneCountInString(name) > 100 {
		return NewKey{}, apperr.Validation(apperr.Detail{Field: "name", Message: "must be at most 100 characters"})
	}
	var nk NewKey
	err = s.store.Atomic(ctx, func(tx Tx) error {
		o, err := tx.Org(ctx, orgID, false)
		if err != nil {
			return err
		}
		if e == principal.EnvLive && !Plans[o.Plan].LiveAccess {
			return ErrPlanUpgradeRequired
		}
		nk = s.newKey(o.ID, e, sc, name)
		if err := s.insertKey(ctx, tx, nk.Key); err != nil {
			return err
		}
		return auditDone(ctx, tx, "key.create", nk.ID, string(e), map[string]any{"name": name, "scopes": sc, "displayPrefix": nk.Prefix})
	})
	return nk, err
}

func (s *Service) newKey(orgID string, env principal.Env, scopes []string, name string) NewKey {
	secret := NewSecret(env)
	return NewKey{Secret: secret, Key: Key{ID: ids.New("key"), OrgID: orgID, Env: env, Scopes: scopes, Name: name,
		Prefix: DisplayPrefix(secret), Hash: apikey.Hash(secret), CreatedAt: s.now().UTC(), Version: 1}}
}

func (s *Service) insertKey(ctx context.Context, tx Tx, k Key) error {
	if err := tx.InsertKey(ctx, k); err != nil {
		return err
	}
	return tx.Emit(ctx, Change{Type: EventKeyCreated, OrgID: k.OrgID, Env: string(k.Env), Data: KeyStateOf(k)})
}

// RevokeKey stops a key at once. orgID "" skips the ownership check (the
// admin API); otherwise a key of another organization is not found.
func (s *Service) RevokeKey(ctx context.Context, orgID, keyID string) (Key, error) {
	var k Key
	err := s.store.Atomic(ctx, func(tx Tx) (err error) {
		if k, err = tx.Key(ctx, orgID, keyID, true); err != nil {
			return err
		}
		if k.RevokedAt != nil {
			return apperr.New(apperr.KindConflict, CodeKeyRevoked, "This key is already revoked")
		}
		now := s.now().UTC()
		k.RevokedAt = &now
		if err := s.saveKey(ctx, tx, &k); err != nil {
			return err
		}
		return auditDone(ctx, tx, "key.revoke", k.ID, string(k.Env), map[string]any{"name": k.Name, "displayPrefix": k.Prefix})
	})
	return k, err
}

// MaxRollGrace bounds how long a rolled key keeps working.
const MaxRollGrace = 72 * time.Hour

// RollKey issues a replacement with the same environment, scopes and name
// and lets the old key work for grace more (0 stops it now).
func (s *Service) RollKey(ctx context.Context, orgID, keyID string, grace time.Duration) (NewKey, Key, error) {
	if grace < 0 || grace > MaxRollGrace {
		return NewKey{}, Key{}, apperr.Validation(apperr.Detail{Field: "gracePeriodHours", Message: "must be between 0 and 72"})
	}
	var nk NewKey
	var old Key
	err := s.store.Atomic(ctx, func(tx Tx) (err error) {
		if old, err = tx.Key(ctx, orgID, keyID, true); err != nil {
			return err
		}
		now := s.now().UTC()
		if !old.Active(now) {
			return apperr.New(apperr.KindConflict, CodeKeyRevoked, "Only an active key can be rolled")
		}
		o, err := tx.Org(ctx, old.OrgID, false)
		if err != nil {
			return err
		}
		if old.Env == principal.EnvLive && !Plans[o.Plan].LiveAccess {
			return ErrPlanUpgradeRequired
		}
		nk = s.newKey(old.OrgID, old.Env, old.Scopes, old.Name)
		if err := s.insertKey(ctx, tx, nk.Key); err != nil {
			return err
		}
		exp := now.Add(grace)
		old.ExpiresAt, old.ReplacedBy = &exp, nk.ID
		if err := s.saveKey(ctx, tx, &old); err != nil {
			return err
		}
		return auditDone(ctx, tx, "key.roll", old.ID, string(old.Env), map[string]any{"replacedBy": nk.ID,
			"gracePeriodHours": int64(grace / time.Hour), "displayPrefix": nk.Prefix})
	})
	return nk, old, err
}

func (s *Service) saveKey(ctx context.Context, tx Tx, k *Key) error {
	k.Version++
	if err := tx.UpdateKey(ctx, *k); err != nil {
		return err
	}
	return tx.Emit(ctx, Change{Type: EventKeyChanged, OrgID: k.OrgID, Env: string(k.Env), Data: KeyStateOf(*k)})
}

// Keys lists an organization's keys, newest first.
func (s *Service) Keys(ctx context.Context, orgID string) ([]Key, error) {
	var ks []Key
	err := s.store.Atomic(ctx, func(tx Tx) (err error) {
		ks, err = tx.Keys(ctx, orgID)
		return err
	})
	return ks, err
}

// Resolve returns the key with a hash and its organization, revoked or
// not: the gateway caches both and decides.
func (s *Service) Resolve(ctx context.Context, hash []byte) (KeyState, OrgState, error) {
	var k Key
	var o Org
	err := s.store.Atomic(ctx, func(tx Tx) (err error) {
		if k, err = tx.KeyByHash(ctx, hash); err != nil {
			return err
		}
		o, err = tx.Org(ctx, k.OrgID, false)
		return err
	})
	if err != nil {
		return KeyState{}, OrgState{}, err
	}
	return KeyStateOf(k), StateOf(o), nil
}
