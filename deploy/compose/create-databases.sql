-- One database per service; each service creates its own tables.
CREATE DATABASE kyc_auth_billing;
CREATE DATABASE kyc_customer;
CREATE DATABASE kyc_document;
CREATE DATABASE kyc_verification;
CREATE DATABASE kyc_reporting;
CREATE DATABASE kyc_webhook;
