#!/usr/bin/env bash
# quickstart.sh - create a sandbox customer, read it back, find it in the
# list. Run after `make run` (keys come from .data/demo-keys.env), or set
# KYC_URL and KYC_SANDBOX_KEY (see lib.sh). Safe to run again: every run
# uses a new phone and email.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
need_key KYC_SANDBOX_KEY "$KYC_SANDBOX_KEY"
AUTH="Authorization: Bearer $KYC_SANDBOX_KEY"
N=$(unique)

step "create a customer (a retry with the same Idempotency-Key changes nothing)"
BODY=$(call POST "$API/customers" -H "$AUTH" -H "$JSON" -H "Idempotency-Key: $(uuid)" -d '{
  "firstName": "Ngozi", "lastName": "Okafor", "phone": "+23480'"$N"'", "email": "ngozi.'"$N"'@example.com",
  "bvn": "22212345678", "loanType": "PERSONAL",
  "addresses": [{"streetName": "Adeola Odeku Street", "city": "Lagos", "state": "Lagos", "notes": "Blue gate"}]}')
echo "$BODY"
ID=$(field id <<<"$BODY")   # cus_...

step "read it back (BVN masked: ***5678)"
call GET "$API/customers/$ID" -H "$AUTH"

step "find it: search is over names, email and phone (status=PENDING... filters)"
LIST=$(call GET "$API/customers?search=ngozi.$N&limit=20" -H "$AUTH")
grep -q "\"$ID\"" <<<"$LIST" || fail "the list does not show $ID: $LIST"
echo "$LIST"

step "the contract, served by the gateway without a key"
call GET "$API/openapi.yaml" | sed -n 1,3p
