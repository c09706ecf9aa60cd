package reader

import (
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOpenPlanted: a recording's directory may be another user's, who can put anything at its
// names. A FIFO with no writer hung the open forever (orca report, and orca record's summary,
// as root); a link to /dev/zero fed the reader without end. Now a FIFO's open returns (one of
// another user's is refused, as a device always is) and a metadata file that is not a regular
// file is left out with a warning, as before.
func TestOpenPlanted(t *testing.T) {
	prefix := writeRecording(t, map[string]string{
		"run.orca":       "1.0,ThreadSleep,1,1;00000001;00000003\n",
		"run.classtable": "0.1,0000BABE,Ljava/lang/Thread;,Thread.java\n",
	})
	if err := syscall.Mkfifo(prefix+".info", 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", prefix+".methods"); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	var r *Recording
	go func() {
		var err error
		r, err = Open(prefix)
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
	case <-time.After(10 * time.Second):
		// Let the open go, so that the test ends.
		if f, err := os.OpenFile(prefix+".info", os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		t.Fatal("Open of a recording whose .info is a FIFO hung")
	}
	warned := strings.Join(r.Warnings, "\n")
	for _, want := range []string{prefix + ".info: not a regular file", prefix + ".methods: not a regular file"} {
		if !strings.Contains(warned, want) {
			t.Errorf("warnings lack %q:\n%s", want, warned)
		}
	}
	if _, err := LoadInfo(prefix + ".methods"); err == nil || !strings.Contains(err.Error(), "device") {
		t.Errorf("LoadInfo of /dev/zero: %v", err)
	}
	if os.Geteuid() == 0 {
		os.Chown(prefix+".info", 65534, 65534)
		if _, err := LoadInfo(prefix + ".info"); err == nil || !strings.Contains(err.Error(), "not orca's user's") {
			t.Errorf("LoadInfo of another user's FIFO: %v", err)
		}
	}
}
