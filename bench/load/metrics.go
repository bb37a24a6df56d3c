package load

import (
	"fmt"
	"io"
	"net/http"
)

// Metrics reads a component's /metrics page (base is its URL), as a
// Prometheus scrape would.
func Metrics(client *http.Client, base string) (string, error) {
	resp, err := client.Get(base + "/metrics")
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	text, err := io.ReadAll(resp.Body)
	if err == nil && resp.StatusCode != http.StatusOK {
		err = fmt.Errorf("%s/metrics: %s", base, resp.Status)
	}
	return string(text), err
}
