package e2e

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

var (
	// mdLink is an inline link or image: [text](target) or ![alt](target),
	// the target up to a space (a title) or the closing parenthesis.
	mdLink = regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	// mdRef is a reference definition: [name]: target.
	mdRef = regexp.MustCompile(`(?m)^\s{0,3}\[[^\]]+\]:\s*(\S+)`)
	// offRepo is anything a Markdown renderer turns into a link that
	// leaves the repository: a URL with a scheme, or GitHub's www. autolinks.
	offRepo = regexp.MustCompile(`(?i)\b(?:https?|ftp)://|\bmailto:|\bwww\.[a-z0-9-]+\.[a-z]`)
	fence   = regexp.MustCompile("(?ms)^\\s*(```|~~~).*?^\\s*(```|~~~)\\s*$")
	code    = regexp.MustCompile("`[^`\n]*`")
	heading = regexp.MustCompile(`(?m)^#{1,6}\s+(.+?)\s*#*\s*$`)
)

// TestDocsLinks holds README.md, BENCHMARKS.md and everything under docs/
// to "no link leaves the repository": every link resolves to a file (and
// heading) in the repository, and no text outside code is a URL. Example
// URLs inside code (`http://127.0.0.1:8080`) are not links.
func TestDocsLinks(t *testing.T) {
	files := []string{"README.md", "BENCHMARKS.md"}
	err := filepath.WalkDir(filepath.Join(repoRoot, "docs"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			rel, _ := filepath.Rel(repoRoot, path)
			files = append(files, rel)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	links := 0
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		text := code.ReplaceAllString(fence.ReplaceAllString(string(b), ""), "")
		var targets []string
		for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
			targets = append(targets, m[1])
		}
		for _, m := range mdRef.FindAllStringSubmatch(text, -1) {
			targets = append(targets, m[1])
		}
		for _, target := range targets {
			links++
			if err := resolves(root, f, target); err != "" {
				t.Errorf("%s: link %q %s", f, target, err)
			}
		}
		for _, line := range strings.Split(text, "\n") {
			if m := offRepo.FindString(line); m != "" {
				t.Errorf("%s: %q leaves the repository: %s", f, m, strings.TrimSpace(line))
			}
		}
	}
	if links < 20 {
		t.Errorf("only %d links found in %d files: is the link pattern still right?", links, len(files))
	}
}

// resolves says what is wrong with a link from file to target, or "".
func resolves(root, file, target string) string {
	path, anchor, _ := strings.Cut(target, "#")
	dest := filepath.Join(root, file)
	if path != "" {
		dest = filepath.Join(filepath.Dir(dest), filepath.FromSlash(path))
		if rel, err := filepath.Rel(root, dest); err != nil || strings.HasPrefix(rel, "..") {
			return "points outside the repository"
		}
		if _, err := os.Stat(dest); err != nil {
			return "names no file in the repository"
		}
	}
	if anchor == "" || !strings.HasSuffix(dest, ".md") {
		return ""
	}
	b, err := os.ReadFile(dest)
	if err != nil {
		return "cannot be read"
	}
	for _, h := range heading.FindAllStringSubmatch(fence.ReplaceAllString(string(b), ""), -1) {
		if slug(h[1]) == anchor {
			return ""
		}
	}
	return "names no heading of " + filepath.Base(dest)
}

// slug is GitHub's anchor for a heading: lower case, spaces to hyphens,
// everything but letters, marks, digits, hyphens and underscores dropped
// (so "§" and "," go, "é" stays).
func slug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
