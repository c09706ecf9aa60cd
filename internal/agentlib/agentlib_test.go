package agentlib

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func sumOf(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func TestExtract(t *testing.T) {
	data := []byte("\x7fELF not really a library")
	sum := sumOf(data)
	root := filepath.Join(t.TempDir(), "orca")

	p, err := extract(data, sum, []string{root})
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, sum[:16], "liborca.so"); p != want {
		t.Fatalf("path = %s, want %s", p, want)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o755 {
		t.Errorf("mode = %v, want 0755", fi.Mode().Perm())
	}

	// A damaged copy is replaced.
	if err := os.WriteFile(p, []byte("garbage"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := extract(data, sum, []string{root}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); string(got) != string(data) {
		t.Errorf("damaged copy not replaced: %q", got)
	}

	// No temporary files are left behind.
	ents, _ := os.ReadDir(filepath.Dir(p))
	if len(ents) != 1 {
		t.Errorf("directory holds %d entries, want 1", len(ents))
	}
}

func TestExtractFallback(t *testing.T) {
	data := []byte("lib")
	sum := sumOf(data)
	tmp := t.TempDir()
	// A file where the cache directory should be: MkdirAll fails even for root.
	blocked := filepath.Join(tmp, "file")
	if err := os.WriteFile(blocked, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	fallback := filepath.Join(tmp, "fallback")
	p, err := extract(data, sum, []string{filepath.Join(blocked, "orca"), fallback})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p, fallback) {
		t.Errorf("path = %s, want below %s", p, fallback)
	}

	// The shared fallback must be private to us.
	open := filepath.Join(tmp, "open")
	if err := os.Mkdir(open, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(open, 0o777)
	if _, err := extract(data, sum, []string{filepath.Join(blocked, "x"), open}); err == nil {
		t.Error("extracted into a world-writable shared directory")
	}
}

func TestExtractEmpty(t *testing.T) {
	if _, err := extract(nil, sumOf(nil), []string{t.TempDir()}); err == nil {
		t.Error("empty library accepted")
	}
}

func TestEmbedded(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	if len(Checksum()) != 64 {
		t.Fatalf("Checksum() = %q", Checksum())
	}
	p, err := Path()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p, Checksum()[:16]) {
		t.Errorf("path %s does not carry the checksum", p)
	}
}

// TestExtractWay: the library is never written below a directory another user owns or could
// change, nor through a symlink on the way (a cache directory of another user's under sudo).
func TestExtractWay(t *testing.T) {
	data := []byte("lib")
	sum := sumOf(data)
	tmp := t.TempDir()
	open := filepath.Join(tmp, "open")
	if err := os.Mkdir(open, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(open, 0o777)
	if _, err := extract(data, sum, []string{filepath.Join(open, "cache", "orca")}); err == nil || !strings.Contains(err.Error(), "writable by others") {
		t.Errorf("below a world-writable directory: %v", err)
	}
	real := filepath.Join(tmp, "real")
	if err := os.Mkdir(real, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(tmp, "link")); err != nil {
		t.Fatal(err)
	}
	if _, err := extract(data, sum, []string{filepath.Join(tmp, "link", "orca")}); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Errorf("through a symlink: %v", err)
	}
	if os.Geteuid() == 0 {
		other := filepath.Join(tmp, "other")
		if err := os.Mkdir(other, 0o755); err != nil {
			t.Fatal(err)
		}
		os.Chown(other, 65532, 65532)
		if _, err := extract(data, sum, []string{filepath.Join(other, "orca")}); err == nil || !strings.Contains(err.Error(), "belongs to uid 65532") {
			t.Errorf("below another user's directory: %v", err)
		}
	}
}
