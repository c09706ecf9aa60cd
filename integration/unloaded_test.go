package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnloadedMethod is issue 22's item 2 on a real JVM (UnloadedMethod.java): a stack captured
// while its method's class was loaded, the class unloaded before the writer names the method (a
// flush period of 1 s, the unload within milliseconds): the method is recorded as "(unloaded)",
// counted in .info methods_unloaded, and the JVM and the recording are whole. The writer may name
// it before the unload (a flush can come at any moment): up to three runs.
func TestUnloadedMethod(t *testing.T) {
	t.Parallel() // beside another test: harness_test.go, "Two at a time"
	forEachJDK(t, func(t *testing.T, j jdk) {
		bin, cls := orcaBin(t), classes(t)
		var last *result
		for try := 0; try < 3; try++ {
			dir := newDir(t)
			prefix := filepath.Join(dir, "x")
			r := run(t, dir, bin, "record", "-o", prefix, "--flush", "1000", "--", j.java(), "-cp", cls, "UnloadedMethod")
			checkNoCrashLog(t, r)
			if r.code != 0 || !strings.Contains(r.stdout, "EXPECT unloaded=true") {
				t.Fatalf("the program did not unload its class:\n%s", r)
			}
			rec := loadComplete(t, prefix)
			rec.checkInvariants(t)
			last = r
			if rec.info["methods_unloaded"] != "" {
				if !strings.Contains(readFile(t, prefix+".methods"), ",(unloaded),()V,00000000,-1") {
					t.Errorf("methods_unloaded=%s but no (unloaded) line in .methods", rec.info["methods_unloaded"])
				}
				return
			}
			// Named before the unload: Gone.run is in .methods by its name.
			if !strings.Contains(readFile(t, prefix+".methods"), ",run,()V,") {
				t.Errorf("neither (unloaded) nor run in .methods")
			}
		}
		t.Errorf("three runs, the writer named the method before its class unloaded each time:\n%s", last)
	})
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
