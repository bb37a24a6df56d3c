// Command uploadbench measures document uploads against the document
// service running as its own process (its own binary, as one pod would): rounds of 20 concurrent multipart uploads of an ~8 MiB
// photo, each to its own customer, directly to the service with a signed
// principal (the gateway streams uploads and is measured in section 1).
// It reports throughput, latency, and the process's resident memory:
// peak (VmHWM) and its baseline before the first upload.
//
//	go run ./cmd/uploadbench -rounds 5
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"image"
	"image/jpeg"
	"log"
	"math/rand/v2"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/kycfield/kyc/bench/load"
	"github.com/kycfield/kyc/pkg/ids"
	"github.com/kycfield/kyc/pkg/miniotest"
	"github.com/kycfield/kyc/pkg/objstore"
	"github.com/kycfield/kyc/pkg/pgtest"
	"github.com/kycfield/kyc/pkg/principal"
)

const addr = "127.0.0.1:18093"

// child is the document service; fatal stops it before exiting.
var child *exec.Cmd

func fatal(v ...any) {
	if child != nil && child.Process != nil {
		_ = child.Process.Kill()
	}
	log.Fatal(v...)
}

func main() {
	rounds := flag.Int("rounds", 5, "rounds of concurrent uploads")
	conc := flag.Int("concurrency", 20, "uploads in flight per round")
	flag.Parse()
	ctx := context.Background()
	tmp, err := os.MkdirTemp("", "uploadbench")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "document")
	if out, err := exec.Command("go", "build", "-o", bin, "../services/document/cmd/document").CombinedOutput(); err != nil {
		log.Fatalf("build: %v\n%s", err, out)
	}
	tag := strconv.FormatInt(time.Now().Unix(), 10)
	dbURL, dropDB, err := pgtest.Create(ctx, "upload_bench")
	if err != nil {
		log.Fatal(err)
	}
	defer dropDB()
	bucket := "kyc-bench-upload-" + tag
	cmd := exec.Command(bin)
	child = cmd
	cmd.Env = append(os.Environ(), "HTTP_ADDR="+addr, "DATABASE_URL="+dbURL, "MINIO_BUCKET="+bucket,
		"KAFKA_TOPIC_PREFIX=bench-upload-"+tag+".", "LOG_LEVEL=warn", "UPLOAD_DIR="+tmp)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		fatal(err)
	}
	defer func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
		if mc, err := objstore.Open(context.Background(), miniotest.Store(), bucket); err == nil {
			miniotest.RemoveBucket(mc, bucket)
		}
	}()
	waitReady()
	baseline := procKiB(cmd.Process.Pid, "VmRSS")

	photo := photo8MiB()
	body, ctype := form(photo)
	org := ids.New("org")
	customers := newCustomers(ctx, dbURL, org, *rounds**conc)
	signer, err := principal.NewSigner([]string{secret()}, time.Minute)
	if err != nil {
		fatal(err)
	}
	client := load.Client(*conc)
	var lat []time.Duration
	errs := 0
	start := time.Now()
	for r := range *rounds {
		var wg sync.WaitGroup
		var mu sync.Mutex
		for i := range *conc {
			wg.Add(1)
			go func() {
				defer wg.Done()
				took, ok := upload(client, signer, org, customers[r**conc+i], body, ctype)
				mu.Lock()
				defer mu.Unlock()
				lat = append(lat, took)
				if !ok {
					errs++
				}
			}()
		}
		wg.Wait()
	}
	elapsed := time.Since(start)
	res := load.Summarise("upload", lat, errs, elapsed)
	peak := procKiB(cmd.Process.Pid, "VmHWM")
	mib := float64(len(photo)) / (1 << 20)
	fmt.Printf("photo %.2f MiB (%d x %d JPEG), %d rounds of %d concurrent uploads\n", mib, 4000, 3000, *rounds, *conc)
	fmt.Println(res)
	fmt.Printf("throughput %.1f MiB/s of photos (%.2f uploads/s)\n", mib*float64(len(lat)-errs)/elapsed.Seconds(), float64(len(lat)-errs)/elapsed.Seconds())
	fmt.Printf("document service RSS: baseline %d MiB, peak %d MiB\n", baseline>>10, peak>>10)
}

func waitReady() {
	deadline := time.Now().Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		if r, err := http.Get("http://" + addr + "/readyz"); err == nil {
			r.Body.Close()
			if r.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	fatal("the document service never became ready")
}

// newCustomers makes n customers known to the service's read model, as
// customer.created events would (a bench shortcut: no customer service).
func newCustomers(ctx context.Context, dbURL, org string, n int) []string {
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		fatal(err)
	}
	defer conn.Close(ctx)
	out := make([]string, n)
	for i := range out {
		out[i] = ids.New("cus")
		if _, err := conn.Exec(ctx, `INSERT INTO customers (customer_id, org_id, env, deleted) VALUES ($1, $2, 'test', false)`, out[i], org); err != nil {
			fatal(err)
		}
	}
	return out
}

func secret() string {
	if v := os.Getenv("PRINCIPAL_SECRETS"); v != "" {
		return strings.Split(v, ",")[0]
	}
	return "local-principal-secret-change-me"
}

func upload(client *http.Client, signer *principal.Signer, org, customer string, body []byte, ctype string) (time.Duration, bool) {
	path := "/api/v1/customers/" + customer + "/documents"
	req, _ := http.NewRequest("POST", "http://"+addr+path, bytes.NewReader(body))
	req.Header.Set("Content-Type", ctype)
	p := principal.Principal{Kind: principal.KindAPIKey, OrgID: org, Env: principal.EnvTest,
		Scopes: []string{principal.ScopeRead, principal.ScopeWrite}, KeyID: "key_bench"}
	req.Header.Set(principal.Header, signer.Sign(p, "POST", path))
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		log.Printf("upload: %v", err)
		return time.Since(start), false
	}
	defer resp.Body.Close()
	var msg bytes.Buffer
	_, _ = msg.ReadFrom(resp.Body)
	if resp.StatusCode != http.StatusCreated {
		log.Printf("upload: %d %s", resp.StatusCode, msg.String())
	}
	return time.Since(start), resp.StatusCode == http.StatusCreated
}

// photo8MiB is a 12-megapixel JPEG with heavy grain, encoded at the
// quality that brings it closest to 8 MiB (photos of walls and gates are
// grainy; grain is what makes phone JPEGs large).
func photo8MiB() []byte {
	img := image.NewNRGBA(image.Rect(0, 0, 4000, 3000))
	r := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < len(img.Pix); i += 4 {
		x, y := i/4%4000, i/4/4000
		g := uint8(r.IntN(90))
		img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = uint8(x/24)+g, uint8(y/18)+g, uint8((x+y)/40)+g, 255
	}
	var best []byte
	for q := 50; q <= 98; q += 4 {
		var b bytes.Buffer
		_ = jpeg.Encode(&b, img, &jpeg.Options{Quality: q})
		if b.Len() > 8<<20+8<<20/50 { // more than 2 % over
			break
		}
		best = b.Bytes()
	}
	if best == nil {
		fatal("could not make a photo near 8 MiB")
	}
	return best
}

func form(photo []byte) ([]byte, string) {
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	_ = mw.WriteField("documentType", "UTILITY_BILL")
	fw, _ := mw.CreateFormFile("file", "gate.jpg")
	_, _ = fw.Write(photo)
	_ = mw.Close()
	return b.Bytes(), mw.FormDataContentType()
}

// procKiB reads a field (VmRSS, VmHWM) of /proc/PID/status, in KiB.
func procKiB(pid int, field string) int {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		fatal(err)
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return n
		}
	}
	return 0
}
