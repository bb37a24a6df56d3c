#!/usr/bin/env bash
# reports.sh - the PDF KYC report of a verified sandbox customer: wait for
# it, download it, read its text, and check it is genuine with the public
# verify endpoint (no key) and its SHA-256. pdftotext comes from
# poppler-utils, which make run installs. Settings: lib.sh.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
need_key KYC_SANDBOX_KEY "$KYC_SANDBOX_KEY"
command -v pdftotext >/dev/null || fail "pdftotext missing: apt-get install poppler-utils (make run does)"
AUTH="Authorization: Bearer $KYC_SANDBOX_KEY"

step "a verified sandbox customer (sandbox.sh shows these steps)"
ID=$(sandbox_customer)
echo "customer $ID"

step "the report is rendered within moments of the outcome (409 REPORT_NOT_READY before)"
ready() {
	local code
	code=$(curl -sS --max-time 30 -o "$WORK/kyc-report.pdf" -D "$WORK/headers" -w '%{http_code}' \
		"$API/customers/$ID/report" -H "$AUTH") || fail "GET report: no answer"
	[[ $code == 200 ]] && return 0
	[[ $code == 409 ]] || fail "GET report: HTTP $code $(cat "$WORK/kyc-report.pdf")"
	return 1
}
wait_until "the report of $ID" ready
grep -iE '^(etag|x-report-id|x-report-version):' "$WORK/headers"

step "its text (DejaVu Sans: Yoruba and Igbo names come out exactly)"
# Into a file first: head closing a pipe early would kill pdftotext (SIGPIPE).
pdftotext -layout -l 1 "$WORK/kyc-report.pdf" "$WORK/page-1.txt"
head -n 25 "$WORK/page-1.txt"

step "the verification code, printed with the URL that vouches for it"
CODE=$(pdftotext "$WORK/kyc-report.pdf" - | grep -oE '/api/v1/reports/verify/[A-Z2-7]{24}' | head -n1 | sed 's|.*/||')
[[ -n $CODE ]] || fail "no verification URL in the report"
echo "$CODE"

step "anyone can check it, without a key: the same SHA-256 means the genuine file"
ANSWER=$(call GET "$API/reports/verify/$CODE")
echo "$ANSWER"
SUM=$(sha256sum "$WORK/kyc-report.pdf" | cut -d' ' -f1)
grep -q "\"sha256\":\"$SUM\"" <<<"$ANSWER" || fail "sha256 $SUM differs from the verify answer"
echo "sha256 $SUM matches"
