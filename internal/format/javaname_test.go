package format

import "testing"

func TestJavaName(t *testing.T) {
	for sig, want := range map[string]string{
		"Ljava/lang/Object;":               "java.lang.Object",
		"LScenario$Lock;":                  "Scenario$Lock",
		"[I":                               "int[]",
		"[[J":                              "long[][]",
		"[Ljava/lang/String;":              "java.lang.String[]",
		"[[Lorg/h2/mvstore/db/MVTable;":    "org.h2.mvstore.db.MVTable[][]",
		"LFoo$$Lambda.0x0000000800c01234;": "Foo$$Lambda/0x0000000800c01234",
		"Ljava/util/concurrent/locks/ReentrantLock$NonfairSync;": "java.util.concurrent.locks.ReentrantLock$NonfairSync",
		"":    "",
		"I":   "I",
		"[":   "[",
		"[Q":  "[Q",
		"a/b": "a.b",
	} {
		if got := JavaName(sig); got != want {
			t.Errorf("JavaName(%q) = %q, want %q", sig, got, want)
		}
	}
}
