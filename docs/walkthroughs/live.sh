#!/usr/bin/env bash
# live.sh - a live verification by a field agent: operations create the
# agent with kycctl, the agent signs in with a one-time code, the lender
# creates a live customer, the agent checks in on site, uploads two photos
# and completes the visit, and the lender reads VERIFIED. curl stands in
# for the agents' phone app, which uses the same /agent/v1 API.
#
# Besides lib.sh's settings: KYCCTL (default bin/kycctl, built by make run),
# which reads KYC_VERIFICATION_ADMIN_URL and ADMIN_TOKEN (make run's
# defaults work). A sandbox key is used for a test photo (a sandbox
# verification's); KYC_PHOTO names a JPEG of your own instead.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
need_key KYC_LIVE_KEY "$KYC_LIVE_KEY"
KYCCTL="${KYCCTL:-$ROOT/bin/kycctl}"
[[ -x $KYCCTL ]] || fail "no kycctl at $KYCCTL: make build"
LIVE="Authorization: Bearer $KYC_LIVE_KEY"
GW="$KYC_URL/agent/v1"
N=$(unique)

step "a test photo"
PHOTO="${KYC_PHOTO:-}"
if [[ -z $PHOTO ]]; then
	need_key KYC_SANDBOX_KEY "$KYC_SANDBOX_KEY"
	ID=$(sandbox_customer)
	sandbox_final "$ID"
	PHOTO="$WORK/photo.jpg"
	URL=$(field url <<<"$STATUS")
	call GET "$KYC_URL/api/v1${URL#*/api/v1}" -H "Authorization: Bearer $KYC_SANDBOX_KEY" -o "$PHOTO" >/dev/null
fi
echo "$PHOTO"

step "operations: an agent covering Lagos (Ikeja first) and a one-time code (15 minutes)"
AGT=$("$KYCCTL" agents create --name "Adewale Johnson" --phone "+23480$N" --states Lagos --lgas Ikeja | field id)
at_exit '"$KYCCTL" agents disable "$AGT" >/dev/null'   # so agents of earlier runs take no tasks
CODE=$("$KYCCTL" agents code "$AGT" | field code)
echo "agent $AGT, code $CODE"

step "the agent signs in: a session token (agt_tok_..., 30 days)"
TOK=$(call POST "$GW/session" -H "$JSON" -d '{"phone":"+23480'"$N"'","code":"'"$CODE"'"}' | field token)
A="Authorization: Bearer $TOK"

step "the lender creates a live customer; its address is assigned on arrival"
BODY=$(call POST "$API/customers" -H "$LIVE" -H "$JSON" -H "Idempotency-Key: $(uuid)" -d '{
  "firstName": "Amaka", "lastName": "Eze", "phone": "+23481'"$N"'", "loanType": "PERSONAL", "loanId": "LN-'"$N"'",
  "addresses": [{"streetNumber": "7", "streetName": "Allen Avenue", "city": "Ikeja", "lga": "Ikeja", "state": "Lagos"}]}')
ID=$(field id <<<"$BODY")
ADR=$(grep -o 'adr_[0-9a-f]*' <<<"$BODY" | head -n1)   # the task id is the address id
echo "customer $ID, address $ADR"
assigned() { status "$ID" "$KYC_LIVE_KEY" && grep -q '"status":"ASSIGNED"' <<<"$STATUS"; }
wait_until "$ADR to be assigned" assigned
# Another active agent covering Ikeja may have got it: operations can move it.
"$KYCCTL" tasks reassign "$ADR" --agent "$AGT" >/dev/null

step "the agent's task list"
listed() {
	TASKS=$(call GET "$GW/tasks" -H "$A") || exit 1
	grep -q "\"$ADR\"" <<<"$TASKS"
}
wait_until "$ADR in the agent's tasks" listed
echo "$TASKS"

step "check in on site (ASSIGNED -> IN_PROGRESS); every change has its own Idempotency-Key"
call POST "$GW/tasks/$ADR/check-in" -H "$A" -H "$JSON" -H "Idempotency-Key: $(uuid)" \
	-d '{"latitude":6.6018,"longitude":3.3515,"accuracy":9}' >/dev/null

step "two photos of this visit (VERIFIED needs 2), with the phone's position"
for tag in building_front street_view; do
	call POST "$GW/tasks/$ADR/photos" -H "$A" -H "Idempotency-Key: $(uuid)" \
		-F tag=$tag -F "file=@$PHOTO;type=image/jpeg" -F latitude=6.6018 -F longitude=3.3515 -F accuracy=9 >/dev/null
done

step "complete the visit"
call POST "$GW/tasks/$ADR/complete" -H "$A" -H "$JSON" -H "Idempotency-Key: $(uuid)" -d '{
  "outcome": "VERIFIED", "verifiedAddress": "7 Allen Avenue, Ikeja, Lagos",
  "latitude": 6.6019, "longitude": 3.3516, "accuracy": 8,
  "notes": "Met her brother", "resident": {"name": "Chidi Eze", "relationship": "Brother"}}' >/dev/null

step "the lender reads VERIFIED (flags, if any, in verificationData.flags)"
verified() { status "$ID" "$KYC_LIVE_KEY" && grep -q '"overallStatus":"VERIFIED"' <<<"$STATUS"; }
wait_until "$ID to be verified" verified
echo "$STATUS"

step "billed once: this month's billable verifications"
call GET "$API/billing/usage" -H "$LIVE"
