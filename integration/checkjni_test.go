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
// without telling JNI its frame needs that many.
func TestCheckJNI(t *testing.T) {
	forEachJDK(t, func(t *testing.T, j jdk) {
		plain := run(t, newDir(t), j.java(), "-Xcheck:jni", "-cp", classes(t), "Scenario")
		if plain.code != 0 {
			t.Fatalf("Scenario without the agent failed:\n%s", plain)
		}
		res, prefix := recordJVM(t, j, []string{"-Xcheck:jni"}, "Scenario")
		if res.code != 0 {
			t.Fatalf("orca record failed:\n%s", res)
		}
		r := load(t, prefix)
		r.checkInfo(t, true, true)
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
			strings.Contains(l, "JNI") {
			lines = append(lines, l)
		}
	}
	return lines
}
