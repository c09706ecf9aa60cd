package integration

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"orca/internal/format"
	"orca/internal/reader"
	"orca/internal/testjvm"
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
					jc := testjvm.Command(t, dir, j.tool(dir, "jcmd", pid, "JVMTI.agent_load", agentLib(t), `"standby=yes"`)...)
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

// TestAttachLinksNoClass: an attach links no class the JVM has loaded but not linked, read from
// HotSpot's own class states (jcmd VM.classes). java.lang.VirtualThread is loaded with the VM
// (from the CDS archive) and linked at the program's first virtual thread; linking it
// deoptimises the compiled code that inlined the Thread methods it overrides (isInterrupted,
// getAndClearInterrupt, blockedOn, interrupt: every interruptible wait's), and a
// retransformation links the class. The first attach to a loaded Tomcat on JDK 25 so had 57 hot
// methods deoptimised and compiled again while it recorded (issue 31 item 5,
// docs/perf/2026-11-28-issue-31-attach.md). So VirtualThread is rewritten when the JVM links
// it: the program's first virtual threads, started during the recording, have every sleep.
func TestAttachLinksNoClass(t *testing.T) {
	forEachJDK(t, func(t *testing.T, j jdk) {
		if j.feature < 23 {
			skipf(t, "%s: an attach rewrites VirtualThread on JDK 23+ only", j.name)
		}
		dir := newDir(t)
		a := startAttachee(t, j, dir)
		pid := strconv.Itoa(a.cmd.Process.Pid)
		// state is VirtualThread's state in jcmd VM.classes ("loaded", "linked",
		// "fully_initialized"), "" when it is not listed.
		state := func() string {
			jc := testjvm.Command(t, dir, j.tool(dir, "jcmd", pid, "VM.classes")...)
			jc.Dir = dir
			out, err := jc.CombinedOutput()
			if err != nil {
				t.Fatalf("jcmd %s VM.classes: %v\n%s", pid, err, out)
			}
			for _, l := range strings.Split(string(out), "\n") {
				if f := strings.Fields(l); len(f) >= 4 && f[len(f)-1] == "java.lang.VirtualThread" {
					return f[2]
				}
			}
			return ""
		}
		if s := state(); s != "loaded" {
			skipf(t, "%s: java.lang.VirtualThread is %q before the attach, not loaded and unlinked", j.name, s)
		}
		a.round(t)
		w := filepath.Join(dir, "w")
		o := startOrca(t, dir, "orca: recording pid "+pid+" (Attachee) to ", "record", "--pid", pid, "-o", w, "--duration", "6s")
		e := o.roundIn(t, a)
		if s := state(); s != "loaded" {
			t.Errorf("java.lang.VirtualThread is %q after the attach, want loaded: the attach linked it", s)
		}
		io.WriteString(a.stdin, "virtual\n")
		want, err := strconv.Atoi(strings.TrimPrefix(a.expectLine(t, "EXPECT virtualSleeps="), "EXPECT virtualSleeps="))
		if err != nil || want <= 0 {
			t.Fatalf("Attachee's virtual threads: %d sleeps, %v", want, err)
		}
		if code := o.wait(t); code != 0 {
			t.Fatalf("orca record --pid: exit %d:\n%s", code, o.stderr)
		}
		checkRound(t, w, e)
		r := load(t, w)
		if hooks := r.info[format.InfoClassHooks]; !strings.Contains(hooks, "VirtualThread when linked") {
			t.Errorf(".info class_hooks=%q, want VirtualThread rewritten when linked", hooks)
		}
		virtual := r.virtualThreads()
		for _, k := range []format.Kind{format.ThreadSleep, format.ThreadSlept} {
			if n := len(r.sel(k, func(_ int, ev reader.Event) bool { return virtual[ev.Thread] })); n != want {
				t.Errorf("%d %v by virtual threads, want %d (Attachee's first virtual threads, started in the recording)", n, k, want)
			}
		}
		a.exit(t, 2)
	})
}
