package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCreateProfile: a profile's file is made new, never through a
// symlink nor over a file that exists (orca may run as root).
func TestCreateProfile(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{link, target} {
		if f, err := createProfile(p); err == nil {
			f.Close()
			t.Errorf("%s: created", p)
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "keep" {
		t.Errorf("the target now holds %q", b)
	}
	f, err := createProfile(filepath.Join(dir, "new"))
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
}
