module github.com/kycfield/kyc/api

go 1.26.8
