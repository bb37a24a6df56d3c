#!/usr/bin/env bash
# imports.sh - a bulk import from CSV in the sandbox: the template, a file
# of five customers with one bad row, the check (problems by row and
# column, nothing created), the start (one request of the daily quota per
# row), the progress and the results file. Settings: lib.sh.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
need_key KYC_SANDBOX_KEY "$KYC_SANDBOX_KEY"
AUTH="Authorization: Bearer $KYC_SANDBOX_KEY"

step "the template: its first row names the columns"
call GET "$API/imports/template.csv" -H "$AUTH" >"$WORK/template.csv"
head -c 200 "$WORK/template.csv"; echo " ..."

step "a file of five customers; row 4 has a misspelt state"
N=$(unique)
{
	echo "firstName,lastName,phone,loanId,address1_streetName,address1_city,address1_state"
	for i in 1 2 3 4 5; do
		state=Lagos
		[[ $i == 3 ]] && state=Lagoss
		echo "Amaka,Eze,+2348${N}${i},IMP-${N}-${i},Adeola Odeku Street,Victoria Island,$state"
	done
} >"$WORK/customers.csv"
cat "$WORK/customers.csv"

step "upload: every row is checked, nothing is created yet"
IMPORT=$(call POST "$API/imports" -H "$AUTH" -H "Idempotency-Key: $(uuid)" -F "file=@$WORK/customers.csv;type=text/csv")
echo "$IMPORT"
ID=$(field id <<<"$IMPORT")
grep -q '"validRows":4' <<<"$IMPORT" || fail "expected 4 valid rows"

step "the problems, by row and column"
PROBLEMS=$(call GET "$API/imports/$ID/errors" -H "$AUTH")
echo "$PROBLEMS"
grep -q '"row":4,"column":"address1_state"' <<<"$PROBLEMS" || fail "row 4's state not reported"

step "start: the 4 valid rows are taken from the daily quota at once (429 QUOTA_EXCEEDED if fewer remain)"
call POST "$API/imports/$ID/start" -H "$AUTH" -H "$JSON" -H "Idempotency-Key: $(uuid)" -d '{"rows": 4}'

step "the job runs on the server; follow its progress"
completed() {
	local im
	im=$(call GET "$API/imports/$ID" -H "$AUTH")
	grep -oE '"(status|createdRows|progress)":("[A-Z]+"|[0-9.]+)' <<<"$im" | tr '\n' ' '; echo
	grep -q '"status":"COMPLETED"' <<<"$im"
}
wait_until "import $ID" completed

step "the results: row, status, customer id or error"
call GET "$API/imports/$ID/results.csv" -H "$AUTH" | tee "$WORK/results.csv"
[[ $(grep -c ',CREATED,cus_' "$WORK/results.csv") == 4 ]] || fail "expected 4 created rows"
