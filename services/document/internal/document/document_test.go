package document

import (
	"strings"
	"testing"

	"github.com/kycfield/kyc/pkg/apperr"
)

func ptr[T any](v T) *T { return &v }

func valid() LinkInput {
	return LinkInput{FileName: ptr("id.jpg"), FileURL: ptr("https://files.example.com/id.jpg"),
		FileType: ptr("image/jpeg"), FileSize: ptr(int64(1024)), DocumentType: ptr("ID_CARD")}
}

func TestCheckLink(t *testing.T) {
	cases := []struct {
		name   string
		env    string
		change func(*LinkInput)
		fields []string // fields at fault, in order; none: valid
	}{
		{"valid", "live", func(*LinkInput) {}, nil},
		{"every type", "live", func(in *LinkInput) { in.DocumentType = ptr("CAC_CERTIFICATE") }, nil},
		{"pdf", "live", func(in *LinkInput) { in.FileType = ptr("application/pdf") }, nil},
		{"10 MiB exactly", "live", func(in *LinkInput) { in.FileSize = ptr(int64(10 << 20)) }, nil},
		{"http in sandbox", "test", func(in *LinkInput) { in.FileURL = ptr("http://files.example.com/a.pdf") }, nil},
		{"http in live", "live", func(in *LinkInput) { in.FileURL = ptr("http://files.example.com/a.pdf") }, []string{"fileUrl"}},
		{"private host", "live", func(in *LinkInput) { in.FileURL = ptr("https://10.0.0.1/a.pdf") }, []string{"fileUrl"}},
		{"metadata host", "test", func(in *LinkInput) { in.FileURL = ptr("http://169.254.169.254/latest") }, []string{"fileUrl"}},
		{"localhost", "test", func(in *LinkInput) { in.FileURL = ptr("http://localhost/a") }, []string{"fileUrl"}},
		{"nat64 metadata host", "live", func(in *LinkInput) { in.FileURL = ptr("https://[64:ff9b::a9fe:a9fe]/latest") }, []string{"fileUrl"}},
		{"6to4 host", "live", func(in *LinkInput) { in.FileURL = ptr("https://[2002:a9fe:a9fe::1]/a.pdf") }, []string{"fileUrl"}},
		{"ipv4-mapped private host", "live", func(in *LinkInput) { in.FileURL = ptr("https://[::ffff:10.0.0.1]/a.pdf") }, []string{"fileUrl"}},
		{"relative url", "live", func(in *LinkInput) { in.FileURL = ptr("/a.pdf") }, []string{"fileUrl"}},
		{"missing documentType", "live", func(in *LinkInput) { in.DocumentType = nil }, []string{"documentType"}},
		{"unknown documentType", "live", func(in *LinkInput) { in.DocumentType = ptr("SELFIE") }, []string{"documentType"}},
		{"lower-case documentType", "live", func(in *LinkInput) { in.DocumentType = ptr("id_card") }, []string{"documentType"}},
		{"gif", "live", func(in *LinkInput) { in.FileType = ptr("image/gif") }, []string{"fileType"}},
		{"zero size", "live", func(in *LinkInput) { in.FileSize = ptr(int64(0)) }, []string{"fileSize"}},
		{"10 MiB + 1", "live", func(in *LinkInput) { in.FileSize = ptr(int64(10<<20 + 1)) }, []string{"fileSize"}},
		{"negative size", "live", func(in *LinkInput) { in.FileSize = ptr(int64(-1)) }, []string{"fileSize"}},
		{"slash in name", "live", func(in *LinkInput) { in.FileName = ptr("../etc/passwd") }, []string{"fileName"}},
		{"backslash in name", "live", func(in *LinkInput) { in.FileName = ptr(`c:\id.jpg`) }, []string{"fileName"}},
		{"control in name", "live", func(in *LinkInput) { in.FileName = ptr("id\n.jpg") }, []string{"fileName"}},
		{"empty name", "live", func(in *LinkInput) { in.FileName = ptr("") }, []string{"fileName"}},
		{"dot name", "live", func(in *LinkInput) { in.FileName = ptr("..") }, []string{"fileName"}},
		{"255 chars", "live", func(in *LinkInput) { in.FileName = ptr(strings.Repeat("é", 255)) }, nil},
		{"256 chars", "live", func(in *LinkInput) { in.FileName = ptr(strings.Repeat("a", 256)) }, []string{"fileName"}},
		{"invalid utf-8", "live", func(in *LinkInput) { in.FileName = ptr("a\xffb") }, []string{"fileName"}},
		{"everything missing", "live", func(in *LinkInput) { *in = LinkInput{} },
			[]string{"documentType", "fileName", "fileUrl", "fileType", "fileSize"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := valid()
			c.change(&in)
			d, err := CheckLink(in, c.env)
			if len(c.fields) == 0 {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if d.FileURL != *in.FileURL || d.DocumentType != *in.DocumentType || d.FileSize != *in.FileSize {
					t.Fatalf("document %+v from %+v", d, in)
				}
				return
			}
			e, ok := apperr.As(err)
			if !ok || e.Code != apperr.CodeValidation {
				t.Fatalf("err %v, want VALIDATION_ERROR", err)
			}
			var got []string
			for _, d := range e.Details {
				got = append(got, d.Field)
			}
			if strings.Join(got, ",") != strings.Join(c.fields, ",") {
				t.Fatalf("fields %v, want %v (%v)", got, c.fields, e.Details)
			}
		})
	}
}

func TestUploadName(t *testing.T) {
	for given, want := range map[string]string{
		"scan.pdf":              "scan.pdf",
		"C:\\Users\\me\\id.png": "id.png",
		"../../etc/passwd":      "passwd",
		"":                      "document.png",
		"a\x00b":                "document.png",
	} {
		if got := UploadName(given, ".png"); got != want {
			t.Errorf("UploadName(%q) = %q, want %q", given, got, want)
		}
	}
}
