package stack

import (
	"os"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/kycfield/kyc/pkg/platform"
)

func TestRegistryEntriesAreDistinct(t *testing.T) {
	seen := map[string]string{}
	claim := func(kind, value, name string) {
		if value == "" {
			return
		}
		if other, dup := seen[kind+value]; dup {
			t.Errorf("%s %s is claimed by both %s and %s", kind, value, other, name)
		}
		seen[kind+value] = name
	}
	for _, s := range All() {
		if s.Name == "" || s.Port == 0 || s.Run == nil {
			t.Errorf("incomplete registry entry %+v", s)
		}
		claim("name", s.Name, s.Name)
		claim("port", s.Addr(), s.Name)
		claim("database", s.Database, s.Name)
		claim("bucket", s.Bucket, s.Name)
	}
}

// The files that cannot read the registry are held to it here: the
// workspace and the compose file must list every service.
func TestWorkspaceAndComposeFollowTheRegistry(t *testing.T) {
	work, err := os.ReadFile("../go.work")
	if err != nil {
		t.Fatal(err)
	}
	compose := readCompose(t)
	for _, s := range All() {
		dir := "./services/" + s.Name
		if s.Name == Gateway.Name {
			dir = "./gateway"
		}
		if !strings.Contains(string(work), "\t"+dir+"\n") {
			t.Errorf("go.work does not use %s", dir)
		}
		c, ok := compose.Services[s.Name]
		if !ok {
			t.Errorf("docker-compose.yml has no %s service", s.Name)
			continue
		}
		// deploy/Dockerfile maps SERVICE to the component's main package
		// (held to the registry by deploy/manifests' TestDockerfileTargets).
		if c.Build.Args["SERVICE"] != s.Name {
			t.Errorf("compose %s builds SERVICE %q, want %q", s.Name, c.Build.Args["SERVICE"], s.Name)
		}
		if s.Database != "" && !strings.Contains(c.Environment["DATABASE_URL"], "/"+s.Database+"?") {
			t.Errorf("compose %s DATABASE_URL %q does not name %s", s.Name, c.Environment["DATABASE_URL"], s.Database)
		}
	}
	ups := compose.Services[Gateway.Name].Environment["UPSTREAMS"]
	for _, s := range Services {
		if !slices.ContainsFunc(strings.Split(ups, ","), func(kv string) bool { return strings.HasPrefix(kv, s.Name+"=") }) {
			t.Errorf("compose gateway UPSTREAMS lacks %s: %q", s.Name, ups)
		}
	}
}

type composeFile struct {
	Services map[string]struct {
		Build struct {
			Args map[string]string `yaml:"args"`
		} `yaml:"build"`
		Environment map[string]string `yaml:"environment"`
	} `yaml:"services"`
}

func readCompose(t *testing.T) composeFile {
	t.Helper()
	b, err := os.ReadFile("../docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	var c composeFile
	if err := yaml.Unmarshal(b, &c); err != nil {
		t.Fatalf("docker-compose.yml: %v", err)
	}
	return c
}

func TestEnvironLayersDefaultsUnderSettings(t *testing.T) {
	s := platform.Service{Name: "x", Port: 8099, Database: "kyc_x", Bucket: "kyc-x"}
	env := s.Environ(map[string]string{"LOG_LEVEL": "warn"}, map[string]string{"MINIO_BUCKET": "other"})
	want := map[string]string{"HTTP_ADDR": "127.0.0.1:8099", "LOG_LEVEL": "warn", "MINIO_BUCKET": "other",
		"DATABASE_URL": "postgres://postgres:postgres@127.0.0.1:5432/kyc_x?sslmode=disable"}
	for k, v := range want {
		if env[k] != v {
			t.Errorf("%s = %q, want %q", k, env[k], v)
		}
	}
	if u, _ := s.DatabaseURL("postgres://u:p@db.internal:6432/anything?sslmode=require"); u != "postgres://u:p@db.internal:6432/kyc_x?sslmode=require" {
		t.Errorf("DatabaseURL on another server: %s", u)
	}
}
