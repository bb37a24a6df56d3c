package account

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/crypto/bcrypt"

	"github.com/kycfield/kyc/pkg/apperr"
	"github.com/kycfield/kyc/pkg/ids"
	"github.com/kycfield/kyc/pkg/orgaudit"
	"github.com/kycfield/kyc/pkg/principal"
)

// InvitationTTL is how long an invitation link works.
const InvitationTTL = 7 * 24 * time.Hour

// Invitation is a link an admin made for someone to join their
// organization with a role. Only the token's hash is stored.
type Invitation struct {
	ID         string
	OrgID      string
	Hash       []byte
	Email      string
	Role       principal.MemberRole
	InvitedBy  string
	CreatedAt  time.Time
	ExpiresAt  time.Time
	AcceptedAt *time.Time
	RevokedAt  *time.Time
}

// NewInvitation is a created invitation with its token, shown once.
type NewInvitation struct {
	Invitation
	Token string
}

// InvitationInfo is what the person holding a link may see before they
// accept it.
type InvitationInfo struct {
	OrgName string
	Email   string
	Role    principal.MemberRole
}

// Error codes of teams.
const (
	CodeLastOwner          = "LAST_OWNER"
	CodeInvitationNotFound = "INVITATION_NOT_FOUND"
	CodeInvitationExpired  = "INVITATION_EXPIRED"
	CodeInvitationUsed     = "INVITATION_USED"
	CodeInvitationRevoked  = "INVITATION_REVOKED"
)

var (
	errLastOwner = apperr.New(apperr.KindConflict, CodeLastOwner,
		"An organization needs at least one owner; make another member owner first")
	errInvitationNotFound = apperr.New(apperr.KindNotFound, CodeInvitationNotFound, "This invitation link is unknown; ask for a new one")
	errInvitationExpired  = apperr.New(apperr.KindGone, CodeInvitationExpired, "This invitation link has expired; ask for a new one")
	errInvitationUsed     = apperr.New(apperr.KindGone, CodeInvitationUsed, "This invitation link has already been used; log in instead")
	errInvitationRevoked  = apperr.New(apperr.KindGone, CodeInvitationRevoked, "This invitation link was revoked; ask for a new one")
	errEmailTaken         = apperr.New(apperr.KindConflict, CodeEmailTaken,
		"An account with this email already exists; a person belongs to one organization")
)

func validateRole(r principal.MemberRole) error {
	if !r.Valid() {
		return apperr.Validation(apperr.Detail{Field: "role", Message: "must be one of owner, admin, developer, viewer"})
	}
	return nil
}

// Members returns the organization's members, oldest first, and (for
// admins and owners only) its pending invitations, newest first.
func (d *Dashboard) Members(ctx context.Context, a Actor) ([]User, []Invitation, error) {
	var us []User
	invs := []Invitation{}
	err := d.store.Atomic(ctx, func(tx Tx) (err error) {
		if us, err = tx.Users(ctx, a.OrgID); err != nil {
			return err
		}
		if a.Role.AtLeast(principal.MemberAdmin) {
			invs, err = tx.PendingInvitations(ctx, a.OrgID, d.now().UTC())
		}
		return err
	})
	return us, invs, err
}

// Invite makes an invitation link for email with role. Only an owner may
// invite an owner; an email that already has an account is refused now
// rather than when the link is opened.
func (d *Dashboard) Invite(ctx context.Context, a Actor, email string, role principal.MemberRole) (NewInvitation, error) {
	var details []apperr.Detail
	em, ok := NormalizeEmail(email)
	if !ok {
		details = append(details, apperr.Detail{Field: "email", Message: "must be a valid email address"})
	}
	if err := validateRole(role); err != nil {
		details = append(details, err.(*apperr.Error).Details...)
	}
	if len(details) > 0 {
		return NewInvitation{}, apperr.Validation(details...)
	}
	if role == principal.MemberOwner && a.Role != principal.MemberOwner {
		return NewInvitation{}, d.refuse(ctx, a, principal.MemberOwner, "member.invite", "", map[string]any{"email": em, "role": string(role)})
	}
	now := d.now().UTC()
	token := randomToken()
	inv := Invitation{ID: ids.New("inv"), OrgID: a.OrgID, Hash: hashToken(token), Email: em, Role: role, InvitedBy: a.UserID,
		CreatedAt: now, ExpiresAt: now.Add(InvitationTTL)}
	err := d.store.Atomic(ctx, func(tx Tx) error {
		if _, err := tx.UserByEmail(ctx, em); err == nil {
			return errEmailTaken
		} else if !apperr.IsCode(err, apperr.CodeNotFound) {
			return err
		}
		if err := tx.InsertInvitation(ctx, inv); err != nil {
			return err
		}
		return tx.OrgAudit(ctx, a.OrgID, "", a.Action("member.invite", inv.ID, orgaudit.Done, map[string]any{"email": em, "role": string(role)}))
	})
	return NewInvitation{Invitation: inv, Token: token}, err
}

// RevokeInvitation stops a pending link. Revoking a revoked one again
// changes nothing; an accepted one cannot be revoked (remove the member).
func (d *Dashboard) RevokeInvitation(ctx context.Context, a Actor, id string) (Invitation, error) {
	if !ids.Valid("inv", id) {
		return Invitation{}, apperr.NotFound("Invitation")
	}
	var inv Invitation
	err := d.store.Atomic(ctx, func(tx Tx) (err error) {
		if inv, err = tx.Invitation(ctx, a.OrgID, id, true); err != nil {
			return err
		}
		switch {
		case inv.AcceptedAt != nil:
			return errInvitationUsed
		case inv.RevokedAt != nil:
			return nil
		}
		if inv.Role == principal.MemberOwner && a.Role != principal.MemberOwner {
			return errOwnerOnly
		}
		now := d.now().UTC()
		inv.RevokedAt = &now
		if err := tx.UpdateInvitation(ctx, inv); err != nil {
			return err
		}
		return tx.OrgAudit(ctx, a.OrgID, "", a.Action("member.invite_revoke", inv.ID, orgaudit.Done, map[string]any{"email": inv.Email, "role": string(inv.Role)}))
	})
	if errors.Is(err, errOwnerOnly) {
		return Invitation{}, d.refuse(ctx, a, principal.MemberOwner, "member.invite_revoke", id, nil)
	}
	return inv, err
}

// errOwnerOnly leaves a transaction that found the actor needs to be an
// owner; the refusal is audited after it rolls back.
var errOwnerOnly = apperr.New(apperr.KindForbidden, principal.CodeRoleRequired, "owner only")

// live returns the invitation of token if it can still be accepted.
func (d *Dashboard) live(ctx context.Context, tx Tx, token string, forUpdate bool) (Invitation, error) {
	if token == "" || len(token) > 200 {
		return Invitation{}, errInvitationNotFound
	}
	inv, err := tx.InvitationByHash(ctx, hashToken(token), forUpdate)
	switch {
	case apperr.IsCode(err, apperr.CodeNotFound):
		return Invitation{}, errInvitationNotFound
	case err != nil:
		return Invitation{}, err
	case inv.AcceptedAt != nil:
		return Invitation{}, errInvitationUsed
	case inv.RevokedAt != nil:
		return Invitation{}, errInvitationRevoked
	case !d.now().Before(inv.ExpiresAt):
		return Invitation{}, errInvitationExpired
	}
	return inv, nil
}

// reserveInvitation counts an attempt with token against the log-in
// throttle: the counters are the link's (by its hash) and the address's,
// so guessing links from one address meets the per-address limit.
func (d *Dashboard) reserveInvitation(ctx context.Context, token, clientIP string) (string, error) {
	h := sha256.Sum256([]byte(token))
	key := "invitation:" + hex.EncodeToString(h[:8])
	wait, err := d.throttle.Reserve(ctx, key, clientIP)
	if err != nil {
		return "", err
	}
	if wait > 0 {
		return "", apperr.New(apperr.KindRateLimited, CodeTooManyAttempts, "Too many attempts; try again later").
			WithHeader("Retry-After", strconv.Itoa(int((wait+time.Second-1)/time.Second)))
	}
	return key, nil
}

// LookupInvitation tells the holder of a link which organization invited
// which email with which role: 404 for an unknown link, 410 for one that
// expired, was used or revoked.
func (d *Dashboard) LookupInvitation(ctx context.Context, token, clientIP string) (InvitationInfo, error) {
	key, err := d.reserveInvitation(ctx, token, clientIP)
	if err != nil {
		return InvitationInfo{}, err
	}
	var info InvitationInfo
	err = d.store.Atomic(ctx, func(tx Tx) error {
		inv, err := d.live(ctx, tx, token, false)
		if err != nil {
			return err
		}
		o, err := tx.Org(ctx, inv.OrgID, false)
		if err != nil {
			return err
		}
		info = InvitationInfo{OrgName: o.Name, Email: inv.Email, Role: inv.Role}
		return nil
	})
	if err == nil {
		_ = d.throttle.Succeeded(ctx, key, clientIP)
	}
	return info, err
}

// AcceptInvitation creates the invited member with their name and
// password (the sign-up rules), uses the link up and signs them in. The
// link is locked while it is used: a second accept waits, then finds it
// used, so a link never makes two users.
func (d *Dashboard) AcceptInvitation(ctx context.Context, token, name, password, clientIP string) (Login, error) {
	key, err := d.reserveInvitation(ctx, token, clientIP)
	if err != nil {
		return Login{}, err
	}
	var details []apperr.Detail
	name = strings.TrimSpace(name)
	if n := utf8.RuneCountInString(name); n < 2 || n > 100 {
		details = append(details, apperr.Detail{Field: "name", Message: "must be 2-100 characters"})
	}
	if err := validatePassword(password); err != nil {
		details = append(details, err.(*apperr.Error).Details...)
	}
	if len(details) > 0 {
		return Login{}, apperr.Validation(details...)
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), d.cost)
	if err != nil {
		return Login{}, apperr.Internal(err)
	}
	var login Login
	err = d.store.Atomic(ctx, func(tx Tx) error {
		inv, err := d.live(ctx, tx, token, true)
		if err != nil {
			return err
		}
		if _, err := tx.UserByEmail(ctx, inv.Email); err == nil {
			return errEmailTaken
		} else if !apperr.IsCode(err, apperr.CodeNotFound) {
			return err
		}
		org, err := tx.Org(ctx, inv.OrgID, false)
		if err != nil {
			return err
		}
		now := d.now().UTC()
		u := User{ID: ids.New("usr"), OrgID: inv.OrgID, Email: inv.Email, Name: name, Role: inv.Role, PasswordHash: hash, CreatedAt: now}
		if err := tx.InsertUser(ctx, u); err != nil {
			return err
		}
		inv.AcceptedAt = &now
		if err := tx.UpdateInvitation(ctx, inv); err != nil {
			return err
		}
		a := ActorOf(u, clientIP)
		if err := tx.OrgAudit(ctx, u.OrgID, "", a.Action("member.join", u.ID, orgaudit.Done,
			map[string]any{"invitation": inv.ID, "email": u.Email, "role": string(u.Role), "invitedBy": inv.InvitedBy})); err != nil {
			return err
		}
		login, err = d.startSession(ctx, tx, u, org)
		return err
	})
	if err == nil {
		_ = d.throttle.Succeeded(ctx, key, clientIP)
	}
	return login, err
}

// ChangeRole gives a member another role, effective on their next
// request (sessions read the role each time). Only an owner may make an
// owner or change an owner's role; the last owner keeps theirs.
func (d *Dashboard) ChangeRole(ctx context.Context, a Actor, userID string, role principal.MemberRole) (User, error) {
	if err := validateRole(role); err != nil {
		return User{}, err
	}
	if !ids.Valid("usr", userID) {
		return User{}, apperr.NotFound("Member")
	}
	var u User
	var before principal.MemberRole
	err := d.store.Atomic(ctx, func(tx Tx) (err error) {
		// The organization's row serializes every change of its owners, so
		// two owners demoting each other at once cannot leave none.
		if _, err := tx.Org(ctx, a.OrgID, true); err != nil {
			return err
		}
		if u, err = tx.UserInOrg(ctx, a.OrgID, userID); err != nil {
			return err
		}
		before = u.Role
		if (before == principal.MemberOwner || role == principal.MemberOwner) && a.Role != principal.MemberOwner {
			return errOwnerOnly
		}
		if before == role {
			return nil
		}
		if before == principal.MemberOwner {
			if err := lastOwner(ctx, tx, a.OrgID); err != nil {
				return err
			}
		}
		u.Role = role
		if err := tx.SetUserRole(ctx, u.ID, role); err != nil {
			return err
		}
		return tx.OrgAudit(ctx, a.OrgID, "", a.Action("member.role_change", u.ID, orgaudit.Done,
			map[string]any{"email": u.Email, "role": string(role), "previousRole": string(before)}))
	})
	if errors.Is(err, errOwnerOnly) {
		return User{}, d.refuse(ctx, a, principal.MemberOwner, "member.role_change", userID, map[string]any{"role": string(role), "previousRole": string(before)})
	}
	return u, err
}

// lastOwner refuses a change that would leave the organization without
// an owner (the caller holds the organization's row).
func lastOwner(ctx context.Context, tx Tx, orgID string) error {
	n, err := tx.CountOwners(ctx, orgID)
	if err != nil {
		return err
	}
	if n <= 1 {
		return errLastOwner
	}
	return nil
}

// RemoveMember deletes a member and, in the same transaction, every
// session of theirs: their next request is refused. Only an owner may
// remove an owner; the last owner stays.
func (d *Dashboard) RemoveMember(ctx context.Context, a Actor, userID string) (User, error) {
	if !ids.Valid("usr", userID) {
		return User{}, apperr.NotFound("Member")
	}
	var u User
	err := d.store.Atomic(ctx, func(tx Tx) (err error) {
		if _, err := tx.Org(ctx, a.OrgID, true); err != nil {
			return err
		}
		if u, err = tx.UserInOrg(ctx, a.OrgID, userID); err != nil {
			return err
		}
		if u.Role == principal.MemberOwner {
			if a.Role != principal.MemberOwner {
				return errOwnerOnly
			}
			if err := lastOwner(ctx, tx, a.OrgID); err != nil {
				return err
			}
		}
		if err := tx.DeleteUser(ctx, u.ID); err != nil {
			return err
		}
		return tx.OrgAudit(ctx, a.OrgID, "", a.Action("member.remove", u.ID, orgaudit.Done,
			map[string]any{"email": u.Email, "role": string(u.Role)}))
	})
	if errors.Is(err, errOwnerOnly) {
		return User{}, d.refuse(ctx, a, principal.MemberOwner, "member.remove", userID, nil)
	}
	return u, err
}
