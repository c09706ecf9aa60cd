package integration

import (
	"bufio"
	"strings"
	"testing"
)

// TestCheckJNI runs Scenario with -Xcheck:jni, with and without the agent: every line the
// JVM prints that mentions a JNI warning with the agent must also appear without it, so the
// agent misuses no JNI function. Reproducer (issue 12, item 13): JDK 17 printed
// "WARNING: JNI local refs: 445, exceeds capacity: 32" with every program, because the
// agent held a local reference per loaded class from GetLoadedClasses at VMInit (asgct.c)
// without telling JNI its frame needs that many. Issue 13, item 3: the agent's fault handler
// (agent/safe.c) must not be installed under -Xcheck:jni, which reports a replaced SIGSEGV
// handler ("Warning: SIGSEGV handler modified!", checked here too).
func TestCheckJNI(t *testing.T) {
	t.Parallel() // beside another test: harness_test.go, "Two at a time"
	forEachJDK(t, func(t *testing.T, j jdk) {
		pd := newDir(t)
		plain := runJVM(t, pd, j.argv(pd, "-Xcheck:jni", "-cp", classes(t), "Scenario"))
		if plain.code != 0 {
			t.Fatalf("Scenario without the agent failed:\n%s", plain)
		}
		res, prefix := recordJVM(t, j, []string{"-Xcheck:jni"}, "Scenario")
		if res.code != 0 {
			t.Fatalf("orca record failed:\n%s", res)
		}
		r := load(t, prefix)
		r.checkInfo(t, true, true)
		// -Xcheck:jni checks every 10 ms that the JVM's SIGSEGV handler is still
		// installed ("Warning: SIGSEGV handler modified!"): the agent installs no fault
		// handler of its own there (agent/safe.c), and says so.
		if v := r.info["hotspot.safe_read"]; !strings.Contains(v, "-Xcheck:jni") {
			t.Errorf(".info: hotspot.safe_read=%q, want the kernel's copy because of -Xcheck:jni", v)
		}
		base := map[string]bool{}
		for _, l := range jniWarnings(plain.stdout + "\n" + plain.stderr) {
			base[l] = true
		}
		for _, l := range jniWarnings(res.stdout + "\n" + res.stderr) {
			if !base[l] {
				t.Errorf("with the agent, -Xcheck:jni printed %q (not printed without the agent)", l)
			}
		}
	})
}

// jniWarnings returns the lines of out in which -Xcheck:jni reports something.
func jniWarnings(out string) []string {
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if strings.Contains(l, "WARNING") || strings.Contains(l, "FATAL ERROR in native method") ||
			strings.Contains(l, "JNI") || strings.Contains(l, "Warning:") || strings.Contains(l, "handler modified") {
			lines = append(lines, l)
		}
	}
	return lines
}
