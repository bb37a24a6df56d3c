#!/usr/bin/env bash
# sandbox.sh - a sandbox verification from start to end: create a customer
# with an mk_test_ key, poll its status until the simulated agent has
# verified it, download a photo, read the statistics; then a magic value
# in the notes (SANDBOX_REJECT) for a rejection. Settings: lib.sh.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
need_key KYC_SANDBOX_KEY "$KYC_SANDBOX_KEY"
AUTH="Authorization: Bearer $KYC_SANDBOX_KEY"

step "create a customer; a simulated agent visits it about 5 s later (SANDBOX_DELAY)"
ID=$(call POST "$API/customers" -H "$AUTH" -H "$JSON" -H "Idempotency-Key: $(uuid)" -d '{
  "firstName": "Amaka", "lastName": "Eze", "phone": "+23480'"$(unique)"'", "loanType": "PERSONAL",
  "addresses": [{"streetNumber": "12", "streetName": "Adeola Odeku Street", "city": "Victoria Island",
                 "state": "Lagos", "landmark": "Opposite the bank"}]}' | field id)
echo "customer $ID"

step "poll the status until the address is final (webhooks save the polling: webhooks.sh)"
final() {
	status "$ID" "$KYC_SANDBOX_KEY" && grep -qE '"overallStatus":"(VERIFIED|REJECTED)"' <<<"$STATUS"
}
wait_until "$ID to be verified" final
grep -q '"overallStatus":"VERIFIED"' <<<"$STATUS" || fail "expected VERIFIED: $STATUS"
echo "$STATUS"

step "download the first photo (stable URLs; they need the key too)"
URL=$(field url <<<"$STATUS")   # built on PUBLIC_URL, the gateway as clients reach it
call GET "$KYC_URL/api/v1${URL#*/api/v1}" -H "$AUTH" -o "$WORK/building_front.jpg" >/dev/null
echo "$(wc -c <"$WORK/building_front.jpg") bytes in $WORK/building_front.jpg"

step "statistics: {total, pending, verified, rejected, inProgress, averageTurnaroundSeconds}"
call GET "$API/verification/stats" -H "$AUTH"

step "its events, each as its webhook carries it (the way to catch up after an outage)"
events_of() {
	EVENTS=$(call GET "$API/events?customerId=$ID&limit=5" -H "$AUTH") || exit 1
	grep -q '"type":"verification.completed"' <<<"$EVENTS"
}
wait_until "the events of $ID" events_of   # stored as the webhook service takes them
echo "$EVENTS"

step "notes with SANDBOX_REJECT: the address is rejected, reason ADDRESS_NOT_FOUND"
ID=$(sandbox_customer SANDBOX_REJECT)   # lib.sh: the steps above in one function
sandbox_final "$ID"
grep -q '"overallStatus":"REJECTED"' <<<"$STATUS" && grep -q '"ADDRESS_NOT_FOUND"' <<<"$STATUS" ||
	fail "expected REJECTED, ADDRESS_NOT_FOUND: $STATUS"
echo "customer $ID: REJECTED, ADDRESS_NOT_FOUND"
