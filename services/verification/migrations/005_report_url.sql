-- Where the customer's newest KYC report is downloaded, from the reporting
-- context's report.generated: shown as reportUrl on the status endpoint.
ALTER TABLE cases ADD COLUMN report_url text NOT NULL DEFAULT '';
