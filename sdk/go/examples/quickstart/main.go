// Command quickstart is the Go SDK's example of README.md, runnable: it
// creates a sandbox customer, waits until the simulated agent has verified
// it, lists the verified customers and pages through the customer's events.
//
//	KYC_URL=http://127.0.0.1:8080 KYC_SANDBOX_KEY=mk_test_... go run ./examples/quickstart
//
// docs/walkthroughs/sdk.sh runs it (and make test runs the walkthrough).
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"time"

	kyc "github.com/kycfield/kyc/sdk/go"
	"github.com/kycfield/kyc/sdk/go/kycapi"
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := kyc.New(kyc.Config{APIKey: os.Getenv("KYC_SANDBOX_KEY"), BaseURL: os.Getenv("KYC_URL")})
	if err != nil {
		log.Fatal(err)
	}
	// A new phone on every run: the same phone twice is DUPLICATE_CUSTOMER.
	phone := fmt.Sprintf("+23480%08d", time.Now().UnixMicro()%100_000_000)
	customer, err := c.CreateCustomer(ctx, kycapi.CustomerCreate{
		FirstName: "Amaka", LastName: "Eze", Phone: phone,
		Addresses: &[]kycapi.AddressInput{{StreetName: "Adeola Odeku Street", City: "Victoria Island", State: "Lagos"}},
	})
	var apiErr *kyc.Error
	if errors.As(err, &apiErr) {
		log.Fatalf("%s (%s): %v", apiErr.Code, apiErr.RequestID, apiErr.Details)
	} else if err != nil {
		log.Fatal(err)
	}
	fmt.Println("created", customer.Id, customer.Status)

	for status := customer.Status; status != kycapi.CustomerStatusVERIFIED && status != kycapi.CustomerStatusREJECTED; {
		time.Sleep(time.Second) // the sandbox agent takes about five seconds
		st, err := c.VerificationStatus(ctx, customer.Id)
		if err != nil {
			log.Fatal(err)
		}
		status = st.OverallStatus
		fmt.Println("status", status)
	}

	verified, limit := "VERIFIED", 50
	n := 0
	for _, err := range c.Customers(ctx, kycapi.ListCustomersParams{Status: &verified, Limit: &limit}) {
		if err != nil {
			log.Fatal(err)
		}
		n++
	}
	fmt.Println("verified customers:", n)

	for event, err := range c.Events(ctx, kycapi.ListEventsParams{CustomerId: &customer.Id}) {
		if err != nil {
			log.Fatal(err)
		}
		body, err := event.AsVerificationOutcomeWebhook() // its id, type and createdAt
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("event", body.Id, body.Type, body.CreatedAt.Format(time.RFC3339))
	}
}
