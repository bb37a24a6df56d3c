// Command kyc runs the platform, or part of it, in one process: every
// service on its own port, database and consumers, then the gateway in
// front of them. `make run` starts it with -target=all (the default);
// production runs one binary per service instead.
//
//	kyc [-target all|NAME[,NAME...]] [-demo-keys FILE]
package main

import (
	"context"
	"flag"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/kycfield/kyc/pkg/config"
	"github.com/kycfield/kyc/pkg/logging"
	"github.com/kycfield/kyc/stack"
)

func main() {
	target := flag.String("target", "all", "components to run: all, or a comma-separated list of "+names())
	demoKeys := flag.String("demo-keys", "", "seed a demo organization with a sandbox and a live key (reused from this file while they work) and print them")
	flag.Parse()
	environ := config.Environ()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log := logging.New("kyc", environ["LOG_LEVEL"])
	err := stack.Run(ctx, stack.Options{
		Targets: strings.Split(*target, ","),
		Environ: environ,
		Log:     func(name string) *slog.Logger { return logging.New(name, environ["LOG_LEVEL"]) },
		Ready: func(urls map[string]string) {
			if *demoKeys == "" {
				log.Info("ready", "urls", urls)
				return
			}
			if err := announce(ctx, urls, *demoKeys, environ); err != nil {
				log.Error("demo organization", "err", err)
				stop()
			}
		},
	})
	if err != nil {
		log.Error("exiting", "err", err)
		os.Exit(1)
	}
}

func names() string {
	var out []string
	for _, s := range stack.All() {
		out = append(out, s.Name)
	}
	return strings.Join(out, ", ")
}
