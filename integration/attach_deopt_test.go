package integration

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"orca/internal/crash"
	"orca/internal/format"
)

// TestAttachDeoptimizes: an attach deoptimises no more compiled code than it must. Read from
// HotSpot's own log (-Xlog:redefine+class+nmethod=debug), not from a timing. A redefinition
// deoptimises only the code that refers to the rewritten classes' methods ("Marked N dependent
// nmethods for deopt") when HotSpot recorded the dependencies from the JVM's start — always on JDK
// 23+ (AlwaysRecordEvolDependencies), and on 17-22 when the JVM started with the agent's
// standby=yes — and every compiled method ("Marked all nmethods for deopt") on 17 otherwise. So
// the attach never rewrites Thread (a join is seen in its wait), rewrites Semaphore (Attachee
// loads it) where that is cheap, and nothing at all on 17 without standby: never "all"
// (docs/attach.md, "What an attach costs"). Either way the attached recording holds the round
// exactly.
func TestAttachDeoptimizes(t *testing.T) {
	forEachJDK(t, func(t *testing.T, j jdk) {
		for _, standby := range []bool{true, false} {
			name := "plain"
			if standby {
				name = "standby"
			}
			t.Run(name, func(t *testing.T) {
				dir := newDir(t)
				log := filepath.Join(dir, "redefine.log")
				args := []string{"-Xlog:redefine+class+nmethod=debug:file=" + log}
				if standby {
					args = append(args, "-agentpath:"+agentLib(t)+"=standby=yes")
				}
				a := startAttachee(t, j, dir, args...)
				pid := strconv.Itoa(a.cmd.Process.Pid)
				// A round before the attach: its code is compiled, some of it calls Thread's methods.
				a.round(t)
				w := filepath.Join(dir, "w")
				o := startOrca(t, dir, "orca: recording pid "+pid+" (Attachee) to ", "record", "--pid", pid, "-o", w, "--duration", "8s")
				e := o.roundIn(t, a)
				if code := o.wait(t); code != 0 {
					t.Fatalf("orca record --pid: exit %d:\n%s", code, o.stderr)
				}
				checkRound(t, w, e)
				if s := a.stderr.String(); strings.Contains(s, "standby") {
					t.Errorf("the JVM's stderr speaks of standby:\n%s", s)
				}
				if standby {
					// An option of the JVM's start: an attach with it is refused (1), and says why.
					jc := exec.Command(filepath.Join(j.home, "bin", "jcmd"), "-J"+crash.ErrorFile(dir), pid, "JVMTI.agent_load", agentLib(t), `"standby=yes"`)
					jc.Dir = dir
					out, _ := jc.CombinedOutput()
					if !strings.Contains(string(out), "return code: 1") || !strings.Contains(a.stderr.String(), "standby=yes is for -agentpath at the JVM's start") {
						t.Errorf("jcmd JVMTI.agent_load LIB standby=yes: want return code 1 and the reason on the JVM's stderr:\n%s\nstderr:\n%s", out, a.stderr)
					}
				}
				a.exit(t, 2)
				b, err := os.ReadFile(log)
				if err != nil {
					t.Fatal(err)
				}
				all := strings.Contains(string(b), "Marked all nmethods for deopt")
				dependent := strings.Contains(string(b), "ependent nmethods for deopt")
				// What the attach rewrote: "live: N classes retransformed ...".
				hooks := load(t, w).info[format.InfoClassHooks]
				n := -1
				fmt.Sscanf(hooks, "live: %d classes", &n)
				cheap := standby || j.feature >= 23
				switch {
				case all:
					t.Errorf("JDK %d, standby=%v: HotSpot deoptimised all compiled code at the attach (class_hooks=%q):\n%s",
						j.feature, standby, hooks, grepLines(string(b), "nmethods for deopt"))
				case !cheap && n != 0:
					t.Errorf("JDK %d without standby: class_hooks=%q, want 0 classes retransformed (each would deoptimise all compiled code)", j.feature, hooks)
				case cheap && n < 1:
					t.Errorf("JDK %d, standby=%v: class_hooks=%q, want Semaphore retransformed (Attachee loads it)", j.feature, standby, hooks)
				case cheap && !dependent:
					t.Errorf("JDK %d, standby=%v: no dependent code deoptimised at the rewrite of %d classes:\n%s",
						j.feature, standby, n, grepLines(string(b), "nmethods for deopt"))
				case !strings.Contains(hooks, "Thread.join seen in its wait"):
					t.Errorf("JDK %d, standby=%v: class_hooks=%q, want Thread.join seen in its wait (Thread not rewritten)", j.feature, standby, hooks)
				}
			})
		}
	})
}
