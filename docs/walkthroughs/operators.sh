#!/usr/bin/env bash
# operators.sh - what operations do with kycctl: an organization, its keys,
# a plan change, usage; agents. kycctl talks to auth-billing's admin API
# (KYC_ADMIN_URL, default http://127.0.0.1:8081) and the verification
# service's (KYC_VERIFICATION_ADMIN_URL, default http://127.0.0.1:8084),
# never through the gateway, with the operators' ADMIN_TOKEN (make run's
# default works). KYCCTL names the binary (default bin/kycctl, built by
# make run). Each run makes a new organization and agent. Settings: lib.sh.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
KYCCTL="${KYCCTL:-$ROOT/bin/kycctl}"
[[ -x $KYCCTL ]] || fail "no kycctl at $KYCCTL: make build"
kycctl() { "$KYCCTL" "$@"; }

step "an organization on Growth, and a live key (the full key is shown once)"
ORG=$(kycctl orgs create --name "Acme Lending" --plan growth | field id)
KEY=$(kycctl keys create --org "$ORG" --env live --scopes kyc:read,kyc:write --name "back office")
echo "$KEY"
KEY_ID=$(field id <<<"$KEY")
SECRET=$(field key <<<"$KEY")

step "the key works at the gateway"
call GET "$API/customers?limit=1" -H "Authorization: Bearer $SECRET" >/dev/null && echo "200"

step "list the organization's keys (prefixes only), then revoke this one"
kycctl keys list --org "$ORG"
kycctl keys revoke "$KEY_ID"

step "a revoked key is refused at once (every gateway follows auth-events)"
refused() {
	[[ $(curl -sS --max-time 30 -o /dev/null -w '%{http_code}' "$API/customers?limit=1" \
		-H "Authorization: Bearer $SECRET") == 401 ]]
}
wait_until "the revoked key to be refused" refused
echo "401"

step "plans and usage"
kycctl orgs plan "$ORG" enterprise
kycctl usage "$ORG" --month "$(date -u +%Y-%m)"

step "agents: create, list (with openTasks), disable (ends its sessions, hands back its tasks), enable"
AGT=$(kycctl agents create --name "Adewale Johnson" --phone "+23480$(unique)" --states Lagos,Ogun --lgas Ikeja,Surulere | field id)
AGENTS=$(kycctl agents list)
grep -qE "\"id\": ?\"$AGT\"" <<<"$AGENTS" || fail "$AGT not listed"
kycctl agents code "$AGT"
kycctl agents disable "$AGT"
kycctl agents enable "$AGT"
kycctl agents disable "$AGT" >/dev/null   # leave no active demo agent behind
