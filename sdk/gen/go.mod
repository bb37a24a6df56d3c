module github.com/kycfield/kyc/sdk/gen

go 1.26.8

require gopkg.in/yaml.v3 v3.0.1
