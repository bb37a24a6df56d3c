// Command healthcheck is the container health probe baked into every image
// (distroless has no shell or curl): it GETs its argument, an URL such as
// http://127.0.0.1:8082/readyz, and exits 0 on a 2xx answer within two
// seconds, 1 otherwise. docker-compose.yml runs it as each service's
// healthcheck; Kubernetes probes HTTP itself and never needs it.
package main

import (
	"fmt"
	"net/http"
	"os"
	"time"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: healthcheck URL")
		os.Exit(2)
	}
	c := &http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		fmt.Fprintln(os.Stderr, resp.Status)
		os.Exit(1)
	}
}
