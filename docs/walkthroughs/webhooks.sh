#!/usr/bin/env bash
# webhooks.sh - register a webhook endpoint, send it a test event, read the
# delivery log, rotate the secret, then remove the endpoint again (an
# organization has at most 10 per environment).
#
# It needs a receiver answering 2xx at KYC_WEBHOOK_URL (default
# http://127.0.0.1:9090/kyc, where the Go receiver of docs/guides/webhooks.md
# listens once started with the secret printed here): while the delivery
# fails, the script resends it every 5 s until KYC_TIMEOUT. make run allows
# endpoints on 127.0.0.1 for sandbox (production refuses private targets).
# Other settings: lib.sh.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
need_key KYC_SANDBOX_KEY "$KYC_SANDBOX_KEY"
AUTH="Authorization: Bearer $KYC_SANDBOX_KEY"
TARGET="${KYC_WEBHOOK_URL:-http://127.0.0.1:9090/kyc}"

step "register $TARGET for the outcomes; the secret (whsec_...) is shown here"
EP=$(call POST "$API/webhooks" -H "$AUTH" -H "$JSON" \
	-d '{"url":"'"$TARGET"'","events":["verification.completed","verification.rejected"]}')
echo "$EP"
WH=$(field id <<<"$EP")
at_exit 'curl -sS --max-time 30 -o /dev/null -X DELETE "$API/webhooks/$WH" -H "$AUTH"'
SECRET=$(field secret <<<"$EP")
echo "export KYC_WEBHOOK_SECRET=$SECRET   # for the receiver"

step "a webhook.test event, signed like every delivery"
DLV=$(call POST "$API/webhooks/$WH/test" -H "$AUTH" | field id)
echo "delivery $DLV"

step "the delivery log: every attempt, its answer and latency"
resend=0
delivered() {
	LOG=$(call GET "$API/webhooks/$WH/deliveries" -H "$AUTH") || exit 1
	grep -q '"status":"succeeded"' <<<"$LOG" && return 0
	if grep -q '"status":"retrying"' <<<"$LOG" && ((SECONDS >= resend)); then
		echo "no 2xx from $TARGET yet: start the receiver with KYC_WEBHOOK_SECRET=$SECRET; resending"
		call POST "$API/webhooks/$WH/deliveries/$DLV/retry" -H "$AUTH" >/dev/null || exit 1
		resend=$((SECONDS + 5))
	fi
	return 1
}
wait_until "delivery $DLV" delivered
echo "$LOG"

step "failures only, and a resend of what failed since an hour ago"
call GET "$API/webhooks/$WH/deliveries?status=retrying" -H "$AUTH"
call POST "$API/webhooks/$WH/recover" -H "$AUTH" -H "$JSON" \
	-d '{"since":"'"$(date -u -d '1 hour ago' +%FT%TZ)"'"}'

step "rotate the secret: the old one keeps signing, beside the new, for 24 h"
call POST "$API/webhooks/$WH/rotate-secret" -H "$AUTH" | grep -o '"secret":"whsec_[^"]*"' | sed 's/:"whsec_.*/:"whsec_..."/'
