package integration

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"orca/internal/testjvm"
)

// threadsJSON is what the test reads of orca threads --json.
type threadsJSON struct {
	Threads   int `json:"threads"`
	Platform  int `json:"platform"`
	Virtual   int `json:"virtual"`
	Deadlocks []struct {
		Kind    string         `json:"kind"`
		Threads []threadsJSON1 `json:"threads"`
	} `json:"deadlocks"`
	Chains []struct {
		RootName  string `json:"root_name"`
		RootState string `json:"root_state"`
		Threads   []struct {
			Name string `json:"name"`
		} `json:"threads"`
		Links []struct {
			On struct {
				Kind string `json:"kind"`
			} `json:"on"`
			For struct {
				Name string `json:"name"`
			} `json:"for"`
			Threads int `json:"threads"`
		} `json:"links"`
	} `json:"chains"`
	List   []threadsJSON1 `json:"platform_threads"`
	Groups []struct {
		Count    int    `json:"count"`
		State    string `json:"state"`
		WaitsFor *struct {
			Name string `json:"name"`
		} `json:"waits_for"`
		Stack   []string `json:"stack"`
		Threads []struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"threads"`
	} `json:"virtual_threads"`
}

type threadsJSON1 struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	State   string `json:"state"`
	WaitsOn *struct {
		Object, Class, Kind string
	} `json:"waits_on"`
	WaitsFor *struct {
		Name string `json:"name"`
	} `json:"waits_for"`
	Holds []struct {
		Object, Class, Kind string
	} `json:"holds"`
	Stack []string `json:"stack"`
}

// TestThreadsNow: orca threads on ThreadsNow.java, never attached before, stuck in known
// ways: exactly its three deadlocks (monitors, j.u.c. locks, mixed) with their threads'
// names, the chains behind sleeper and gate-holder, the running spinner's stack; on 21+ its
// 50 virtual threads parked on vholder's lock in one group and its 20 parked in it under
// three frames of nest() in another, each group's stack its own (the same JDK frames down
// to ReentrantLock.lock, then only the second's nest frames). Then the text form (a second
// attach), deadlocks first. The JVM runs on after both, with no thread of orca's (the Java
// threads it lists are those before plus HotSpot's Attach Listener, and one OS thread has
// that name) and no file of orca's left in /tmp.
// threadsSteady is orca threads' JSON out without what changes from one
// snapshot to the next: its times, the stacks of running threads.
func threadsSteady(t *testing.T, out string) string {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("orca threads --json: %v\n%s", err, tail(out, 2000))
	}
	delete(v, "took_s")
	delete(v, "agent_ms")
	for _, th := range v["platform_threads"].([]any) {
		if th := th.(map[string]any); th["state"] == "runnable" || th["state"] == "in_native" {
			delete(th, "stack")
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestThreadsNow(t *testing.T) {
	forEachJDK(t, func(t *testing.T, j jdk) {
		dir := newDir(t)
		args := []string{"-cp", classes(t), "ThreadsNow"}
		const nvirtual, nnested = 50, 20
		if j.feature >= 21 {
			args = append(args, "virtual", fmt.Sprint(nvirtual), "vnested", fmt.Sprint(nnested))
		}
		a := startAttacheeCmd(t, testjvm.Command(t, dir, j.argv(dir, args...)...), dir)
		before := javaThreads(t, a)
		tmpBefore, _ := filepath.Glob("/tmp/orca-threads-*")
		bin := orcaBin(t)

		r := run(t, dir, bin, "threads", fmt.Sprint(a.jvm), "--json")
		if r.code != 0 {
			t.Fatalf("orca threads --json: %s", r)
		}
		var v threadsJSON
		if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
			t.Fatalf("orca threads --json: %v\n%s", err, tail(r.stdout, 2000))
		}
		// The same answer when the fold takes every virtual thread, not one
		// of each set that does the same (model.Options.Collapse), but for
		// the times and the stacks of the threads that run.
		r0 := run(t, dir, "env", "ORCA_THREADS_COLLAPSE=0", bin, "threads", fmt.Sprint(a.jvm), "--json")
		if r0.code != 0 {
			t.Fatalf("orca threads --json, ORCA_THREADS_COLLAPSE=0: %s", r0)
		}
		if a, b := threadsSteady(t, r.stdout), threadsSteady(t, r0.stdout); a != b {
			t.Errorf("orca threads --json differs with the collapse of virtual threads:\n%s\nand without:\n%s", tail(a, 3000), tail(b, 3000))
		}
		// The deadlocks: exactly these three, each of its two threads.
		got := map[string][]string{}
		for _, d := range v.Deadlocks {
			var names []string
			for _, th := range d.Threads {
				names = append(names, th.Name)
			}
			slices.Sort(names)
			got[d.Kind] = names
		}
		want := map[string][]string{"monitor": {"mon-a", "mon-b"}, "juc": {"juc-a", "juc-b"}, "mixed": {"mix-a", "mix-b"}}
		if len(v.Deadlocks) != 3 || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("deadlocks %v (%d), want %v", got, len(v.Deadlocks), want)
		}
		byName := map[string]threadsJSON1{}
		for _, th := range v.List {
			byName[th.Name] = th
		}
		// Each waits for the other, on the lock the other holds.
		for _, p := range [][2]string{{"mon-a", "mon-b"}, {"juc-a", "juc-b"}, {"mix-a", "mix-b"}, {"mon-b", "mon-a"}, {"juc-b", "juc-a"}, {"mix-b", "mix-a"}} {
			w, h := byName[p[0]], byName[p[1]]
			if w.WaitsOn == nil || w.WaitsFor == nil || w.WaitsFor.Name != p[1] ||
				!slices.ContainsFunc(h.Holds, func(o struct{ Object, Class, Kind string }) bool { return o.Object == w.WaitsOn.Object }) {
				t.Errorf("%s: waits on %+v for %+v; %s holds %+v: want it to wait for %s on a lock %s holds", p[0], w.WaitsOn, w.WaitsFor, p[1], h.Holds, p[1], p[1])
			}
		}
		if th := byName["mix-a"]; th.State != "parked" || th.WaitsOn == nil || th.WaitsOn.Kind != "juc_lock" ||
			th.WaitsOn.Class != "java.util.concurrent.locks.ReentrantLock$NonfairSync" {
			t.Errorf("mix-a: %+v, want parked on the ReentrantLock's sync", th)
		}
		if th := byName["mix-b"]; th.State != "blocked" || th.WaitsOn == nil || th.WaitsOn.Kind != "monitor" || th.WaitsOn.Class != "java.lang.Object" {
			t.Errorf("mix-b: %+v, want blocked on a java.lang.Object's monitor", th)
		}
		// The chains: behind sleeper (sleeping), the three blocked on its monitor; behind
		// gate-holder (in Object.wait), the two parked on its lock. No other.
		chains := map[string]string{}
		for _, c := range v.Chains {
			var names []string
			for _, th := range c.Threads {
				names = append(names, th.Name)
			}
			slices.Sort(names)
			key := c.RootName + " (" + c.RootState + ")"
			// One step each: all wait on one lock its root holds.
			if l := c.Links; len(l) != 1 || l[0].For.Name != c.RootName || l[0].Threads != len(c.Threads) || l[0].On.Kind == "" {
				t.Errorf("chain %s: links %+v, want one, of its %d threads, on a lock %s holds", key, l, len(c.Threads), c.RootName)
			}
			if c.RootName == "vholder" {
				names = []string{fmt.Sprint(len(names), " threads")}
			}
			chains[key] = strings.Join(names, ",")
		}
		wantChains := map[string]string{"sleeper (sleeping)": "behind-1,behind-2,behind-3", "gate-holder (waiting)": "gate-1,gate-2"}
		if j.feature >= 21 {
			wantChains["vholder (sleeping)"] = fmt.Sprint(nvirtual+nnested, " threads")
		}
		if !maps.Equal(chains, wantChains) {
			t.Errorf("chains %v, want %v", chains, wantChains)
		}
		if th := byName["spinner"]; th.State != "runnable" || len(th.Stack) == 0 || !strings.HasPrefix(th.Stack[0], "ThreadsNow.lambda$main$") {
			t.Errorf("spinner: %+v, want runnable in ThreadsNow's lambda", th)
		}
		if th := byName["sleeper"]; th.State != "sleeping" || len(th.Holds) != 1 || th.Holds[0].Kind != "monitor" {
			t.Errorf("sleeper: %+v, want sleeping, holding one monitor", th)
		}
		// Virtual threads (21+): two groups, 50 and 20, parked on vholder's lock, each
		// with its stack.
		if j.feature >= 21 {
			if v.Virtual != nvirtual+nnested || len(v.Groups) != 2 {
				t.Fatalf("virtual threads: %d in groups %+v, want %d in two", v.Virtual, v.Groups, nvirtual+nnested)
			}
			var jdkFrames []string
			for k, want := range []struct{ count, nests int }{{nvirtual, 0}, {nnested, 3}} {
				g := v.Groups[k]
				if g.Count != want.count || g.State != "parked" || g.WaitsFor == nil || g.WaitsFor.Name != "vholder" {
					t.Errorf("virtual threads' group %d: %d, %s, waiting for %+v; want %d, parked, waiting for vholder", k, g.Count, g.State, g.WaitsFor, want.count)
				}
				lock := slices.IndexFunc(g.Stack, func(f string) bool { return strings.HasPrefix(f, "java.util.concurrent.locks.ReentrantLock.lock(") })
				if lock < 0 {
					t.Errorf("virtual threads' group %d: no ReentrantLock.lock frame in %q", k, g.Stack)
					continue
				}
				// The JDK's frames of the park, the same in both.
				if jdkFrames == nil {
					jdkFrames = g.Stack[:lock+1]
				} else if !slices.Equal(g.Stack[:lock+1], jdkFrames) {
					t.Errorf("virtual threads' group %d: frames to ReentrantLock.lock %q, want the other group's %q", k, g.Stack[:lock+1], jdkFrames)
				}
				nests := 0
				for i := lock + 1; i < len(g.Stack) && strings.HasPrefix(g.Stack[i], "ThreadsNow.nest("); i++ {
					nests++
				}
				if n := len(slices.DeleteFunc(slices.Clone(g.Stack), func(f string) bool { return !strings.HasPrefix(f, "ThreadsNow.nest(") })); n != want.nests || nests != want.nests {
					t.Errorf("virtual threads' group %d: %d nest frames (%d right under ReentrantLock.lock), want %d: %q", k, n, nests, want.nests, g.Stack)
				}
			}
		} else if v.Virtual != 0 || len(v.Groups) != 0 {
			t.Errorf("virtual threads on %d: %d, want none", j.feature, v.Virtual)
		}
		vids := virtualIDs(t, v)
		if v.Platform != len(v.List) || v.Threads != v.Platform+v.Virtual || byName["main"].Name == "" {
			t.Errorf("counts: %d threads, %d platform (%d listed), %d virtual", v.Threads, v.Platform, len(v.List), v.Virtual)
		}

		// The text: deadlocks first, each line of one with the word and its threads' names.
		r = run(t, dir, bin, "threads", fmt.Sprint(a.jvm))
		if r.code != 0 {
			t.Fatalf("orca threads: %s", r)
		}
		out := r.stdout
		for _, p := range [][2]string{{"mon-a", "mon-b"}, {"juc-a", "juc-b"}, {"mix-a", "mix-b"}} {
			header := false
			for _, l := range strings.Split(out, "\n") {
				if strings.HasPrefix(l, "DEADLOCK #") && strings.Contains(l, `"`+p[0]+`"`) && strings.Contains(l, `"`+p[1]+`"`) {
					header = true
				}
			}
			for _, name := range p {
				if !strings.Contains(out, `deadlock #`) || !regexpLine(out, `^  deadlock #\d: "`+name+`" (blocked entering|parked on) .* held by "`) {
					t.Errorf("no line 'deadlock #N: %q ... held by' in:\n%s", name, tail(out, 3000))
				}
			}
			if !header {
				t.Errorf("no DEADLOCK line naming %s and %s", p[0], p[1])
			}
		}
		if d, th := strings.Index(out, "DEADLOCK #1"), strings.Index(out, "\nTHREADS\n"); d < 0 || th < d {
			t.Errorf("the deadlocks do not come first:\n%s", tail(out, 3000))
		}

		// A third attach lists every virtual thread again, each once, by the
		// same id (the agent tells them apart by Thread.tid in a set of each
		// snapshot's own, not by a mark left in the thread).
		if j.feature >= 21 {
			r = run(t, dir, bin, "threads", fmt.Sprint(a.jvm), "--json")
			var v3 threadsJSON
			if err := json.Unmarshal([]byte(r.stdout), &v3); r.code != 0 || err != nil {
				t.Fatalf("orca threads --json (again): %v: %s", err, r)
			}
			if again := virtualIDs(t, v3); !slices.Equal(again, vids) {
				t.Errorf("virtual threads at the third attach: %v, want those of the first: %v", again, vids)
			}
		}

		// The JVM runs on, with no thread of orca's and no file left.
		after := javaThreads(t, a)
		if !slices.Contains(before, "Attach Listener") {
			before = append(before, "Attach Listener")
			slices.Sort(before)
		}
		if !slices.Equal(before, after) {
			t.Errorf("Java threads after orca threads:\n%v\nwant those before and the Attach Listener:\n%v", after, before)
		}
		if n := osThreadsNamed(t, a.jvm, "Attach Listener"); n != 1 {
			t.Errorf("%d OS threads named Attach Listener (the agent's would inherit the name), want 1", n)
		}
		if tmpAfter, _ := filepath.Glob("/tmp/orca-threads-*"); len(tmpAfter) != len(tmpBefore) {
			t.Errorf("/tmp/orca-threads-*: %v after, %v before", tmpAfter, tmpBefore)
		}
		io.WriteString(a.stdin, "EXIT\n")
		checkEnded(t, a, "ThreadsNow")
	})
}

// virtualIDs returns the ids and names of the virtual threads in v's
// groups, sorted, each checked to be listed once, named virtual-TID (they
// are unnamed) and in a group of its count.
func virtualIDs(t *testing.T, v threadsJSON) []string {
	t.Helper()
	var ids []string
	for _, g := range v.Groups {
		if len(g.Threads) != g.Count {
			t.Errorf("a group of %d virtual threads lists %d", g.Count, len(g.Threads))
		}
		for _, th := range g.Threads {
			if !strings.HasPrefix(th.Name, "virtual-") {
				t.Errorf("virtual thread %s named %q, want virtual-TID", th.ID, th.Name)
			}
			ids = append(ids, th.ID+" "+th.Name)
		}
	}
	slices.Sort(ids)
	if d := slices.Compact(slices.Clone(ids)); len(d) != len(ids) || len(ids) != v.Virtual {
		t.Errorf("virtual threads: %d listed, %d distinct, want %d", len(ids), len(d), v.Virtual)
	}
	return ids
}

// TestThreadsErrors: orca threads on what it cannot attach to says so, exit 1; a bad pid
// is a usage error, exit 2.
func TestThreadsErrors(t *testing.T) {
	// Alone: it counts /tmp/orca-threads-* before and after, which any orca threads makes.
	dir := newDir(t)
	bin := orcaBin(t)
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"threads", "x"}, 2, `"x" is no pid`},
		{[]string{"threads"}, 2, "want one PID"},
		{[]string{"threads", "999999999"}, 1, "no such process"},
		{[]string{"threads", fmt.Sprint(os.Getpid())}, 1, "not a HotSpot JVM"},
	} {
		r := run(t, dir, bin, c.args...)
		if r.code != c.code || !strings.Contains(r.stderr, c.msg) {
			t.Errorf("orca %v: exit %d, stderr %q; want %d and %q", c.args, r.code, r.stderr, c.code, c.msg)
		}
	}
	if r := run(t, dir, bin, "threads", "--help"); r.code != 0 || !strings.Contains(r.stdout, "orca threads 4242 --json") {
		t.Errorf("orca threads --help: %s", r)
	}
	// A JVM that refuses every attach: said, and nothing left in its /tmp.
	forEachJDK(t, func(t *testing.T, j jdk) {
		dir := newDir(t)
		a := startAttacheeCmd(t, testjvm.Command(t, dir, j.argv(dir, "-XX:+DisableAttachMechanism", "-cp", classes(t), "ThreadsNow")...), dir)
		before, _ := filepath.Glob("/tmp/orca-threads-*")
		r := run(t, dir, bin, "threads", fmt.Sprint(a.jvm))
		if r.code != 1 || !strings.Contains(r.stderr, "-XX:+DisableAttachMechanism") || r.stdout != "" {
			t.Errorf("orca threads on a JVM with -XX:+DisableAttachMechanism: %s", r)
		}
		if after, _ := filepath.Glob("/tmp/orca-threads-*"); len(after) != len(before) {
			t.Errorf("/tmp/orca-threads-*: %v after, %v before", after, before)
		}
		io.WriteString(a.stdin, "EXIT\n")
		checkEnded(t, a, "ThreadsNow")
	})
}

// javaThreads asks ThreadsNow for its live threads' names, sorted.
func javaThreads(t *testing.T, a *attachee) []string {
	t.Helper()
	io.WriteString(a.stdin, "LIST\n")
	var names []string
	for {
		l := a.expectLine(t, "")
		if strings.HasPrefix(l, "END") {
			if l != "END spins=true" {
				t.Errorf("%q: the spinner does not run", l)
			}
			break
		}
		if n, ok := strings.CutPrefix(l, "THREAD "); ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

// osThreadsNamed counts pid's OS threads whose name (comm) is name.
func osThreadsNamed(t *testing.T, pid int, name string) int {
	t.Helper()
	comms, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/comm", pid))
	n := 0
	for _, c := range comms {
		if b, err := os.ReadFile(c); err == nil && strings.TrimSpace(string(b)) == name {
			n++
		}
	}
	return n
}

// regexpLine reports whether a line of s matches the regular expression re.
func regexpLine(s, re string) bool { return regexp.MustCompile("(?m)" + re).MatchString(s) }

// TestThreadsMonitorUnread: orca threads on StuckBeforeAttach with every read of the owner site
// faulting (ORCA_TEST_FAULTS=owner:1): the threads blocked on a monitor (dead-1, dead-2) or in
// Object.wait (waiter) cannot have their monitor read, as a thread that left its wait between
// the listing and the read (Tomcat's 1 ms waits under load). They are counted and said
// (monitor_unread, the text's line), and each shows the stack it was listed with — it was shown
// runnable with none.
func TestThreadsMonitorUnread(t *testing.T) {
	forEachJDK(t, func(t *testing.T, j jdk) {
		dir := newDir(t)
		a := stuckAttachee(t, j, dir, "ORCA_TEST_FAULTS=owner:1")
		bin := orcaBin(t)
		r := run(t, dir, bin, "threads", fmt.Sprint(a.jvm), "--json")
		if r.code != 0 {
			t.Fatalf("orca threads --json: %s", r)
		}
		var v struct {
			threadsJSON
			Unread int `json:"monitor_unread"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
			t.Fatalf("orca threads --json: %v\n%s", err, tail(r.stdout, 2000))
		}
		if v.Unread < 3 {
			t.Errorf("monitor_unread %d, want at least 3 (dead-1, dead-2, waiter)", v.Unread)
		}
		for _, name := range []string{"dead-1", "dead-2", "waiter"} {
			found := false
			for _, th := range v.List {
				if th.Name != name {
					continue
				}
				found = true
				want := "Object.wait"
				if name != "waiter" {
					want = "StuckBeforeAttach.lambda$main$"
				}
				if th.State != "runnable" || len(th.Stack) == 0 || !strings.Contains(strings.Join(th.Stack, "\n"), want) {
					t.Errorf("%s: %s, stack %q; want runnable with its stack (%s)", name, th.State, th.Stack, want)
				}
			}
			if !found {
				t.Errorf("%s not listed", name)
			}
		}
		txt := run(t, dir, bin, "threads", fmt.Sprint(a.jvm))
		if want := fmt.Sprintf("(%d threads listed blocked on a monitor or in Object.wait whose monitor could not be read", v.Unread); txt.code != 0 || !strings.Contains(txt.stdout, want) {
			t.Errorf("orca threads: no line %q:\n%s", want, txt.stdout[:min(len(txt.stdout), 800)])
		}
		endStuck(t, a)
	})
}
