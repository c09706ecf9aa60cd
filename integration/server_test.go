package integration

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"orca/internal/crash"
	"orca/internal/format"
	"orca/internal/reader"
	"orca/internal/testjvm"
)

// The Debian-packaged server and load generator of TestServerVsJFR (make test installs them when
// it runs as root: tomcat10-common and wrk).
const (
	catalinaHome = "/usr/share/tomcat10"
	servletAPI   = "/usr/share/java/tomcat10-servlet-api.jar"
)

var servletClasses javacOnce

// TestServerVsJFR records Tomcat 10 under load with Orca and JDK Flight Recorder in the same JVM
// (testdata/java/server: a servlet that blocks in every way a request thread does: monitors,
// waits, sleeps, ReentrantLock, a read-write lock, a Condition, a future, a latch, a queue,
// parkNanos) and compares the time the request and pool threads spent not running: Orca's
// intervals (every begin/end pair of the event table) against JFR's (JavaMonitorEnter,
// JavaMonitorWait, ThreadPark, ThreadSleep, through orca import), per thread as the union of
// its intervals, clipped to a window inside the load. Both see the same JVM, so the totals must
// agree within 5 %.
func TestServerVsJFR(t *testing.T) {
	if _, err := os.Stat(filepath.Join(catalinaHome, "bin", "catalina.sh")); err != nil {
		skipf(t, "no Tomcat 10 at %s (apt-get install tomcat10-common; make test does it as root)", catalinaHome)
	}
	wrk, err := exec.LookPath("wrk")
	if err != nil {
		skipf(t, "no wrk (apt-get install wrk; make test does it as root)")
	}
	cls := servletClasses.get(t, "server-classes", func() ([]string, error) {
		srcs, _ := filepath.Glob(filepath.Join("..", "testdata", "java", "server", "orca", "test", "*.java"))
		if len(srcs) == 0 {
			return nil, fmt.Errorf("no Java sources in ../testdata/java/server")
		}
		return append([]string{"-cp", servletAPI}, srcs...), nil
	})
	forEachJDK(t, func(t *testing.T, j jdk) {
		for _, virtual := range []bool{false, true} {
			name := map[bool]string{false: "platform", true: "virtual"}[virtual]
			t.Run(name, func(t *testing.T) {
				if virtual && jdkFeature(t, j) < 21 {
					skipf(t, "%s has no virtual threads (21+)", j.name)
				}
				serverVsJFR(t, j, cls, wrk, virtual)
			})
		}
	})
}

// serverVsJFR is one run of TestServerVsJFR on JDK j, its request threads virtual when virtual
// (Tomcat's useVirtualThreads: a virtual thread per request).
func serverVsJFR(t *testing.T, j jdk, cls, wrk string, virtual bool) {
	{
		base, port := tomcatBase(t, cls, virtual)
		jfrFile := filepath.Join(base, "run.jfr")
		jfc := filepath.Join(base, "compare.jfc")
		if err := os.WriteFile(jfc, []byte(jfcCompare), 0o644); err != nil {
			t.Fatal(err)
		}
		prefix := filepath.Join(base, "x")
		cmd := exec.Command(orcaBin(t), "record", "-o", prefix, "--", filepath.Join(catalinaHome, "bin", "catalina.sh"), "run")
		cmd.Dir = base
		cmd.Env = append(os.Environ(), "JAVA_HOME="+j.home, "CATALINA_HOME="+catalinaHome, "CATALINA_BASE="+base,
			"CATALINA_PID=", "JAVA_OPTS="+testjvm.Options(base, "-XX:StartFlightRecording=filename="+jfrFile+",settings="+jfc, "-Xlog:jfr+startup=warning"))
		logf, err := os.Create(filepath.Join(base, "tomcat.log"))
		if err != nil {
			t.Fatal(err)
		}
		defer logf.Close()
		cmd.Stdout, cmd.Stderr = logf, logf
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		stopped := false
		stop := func() {
			if stopped {
				return
			}
			stopped = true
			// orca record passes the signal on to its child (catalina.sh run execs java).
			cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-done:
			case <-time.After(60 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Errorf("Tomcat did not stop within 60 s of SIGTERM")
			}
		}
		defer stop()
		logTail := func() string { b, _ := os.ReadFile(filepath.Join(base, "tomcat.log")); return tail(string(b), 3000) }

		url := fmt.Sprintf("http://127.0.0.1:%d/block", port)
		if err := waitHTTP(url, 60*time.Second, done); err != nil {
			t.Fatalf("Tomcat did not answer %s: %v\n%s", url, err, logTail())
		}
		// Load: the window compared starts 1 s into it and ends 1 s before its end, so both
		// captures have every interval that ends inside it.
		w0 := time.Now()
		out, err := exec.Command(wrk, "-t2", "-c16", "-d6s", url).CombinedOutput()
		w1 := time.Now()
		if err != nil {
			t.Fatalf("wrk: %v\n%s", err, out)
		}
		t.Logf("wrk: %s", strings.Join(regexp.MustCompile(`(?m)^.*(Requests/sec|requests in).*$`).FindAllString(string(out), -1), "; "))
		from, to := w0.Add(time.Second), w1.Add(-time.Second)
		stop()
		crash.Check(t, base)
		if code := cmd.ProcessState.ExitCode(); code != 0 && code != 143 {
			t.Fatalf("orca record exited %d\n%s", code, logTail())
		}

		imp := filepath.Join(base, "imp")
		if r := run(t, base, orcaBin(t), "import", jfrFile, "-o", imp); r.code != 0 {
			t.Fatalf("orca import failed:\n%s", r)
		}
		busy := regexp.MustCompile(`^(http-nio-[0-9.]+-\d+-(exec|virt)-\d+|blocking-pool-\d+|blocking-consumer)$`)
		// Of a virtual thread JFR (25) records no jdk.ThreadPark and no jdk.JavaMonitorEnter, and
		// its jdk.JavaMonitorWait lasts until the thread unmounts (tens of nanoseconds), not until
		// the wait ends: only its sleeps are compared, everything of the platform threads.
		var kinds func(string, format.Kind) bool
		if virtual {
			vt := regexp.MustCompile(`-virt-\d+$`)
			kinds = func(name string, k format.Kind) bool { return !vt.MatchString(name) || k == format.ThreadSleep }
			all := notRunning(t, prefix, from, to, busy, nil)
			t.Logf("with virtual threads' parks, monitor enters and waits: orca %.3f s (JFR has none, or waits of ~0 s)", all.total())
		}
		o := notRunning(t, prefix, from, to, busy, kinds)
		f := notRunning(t, imp, from, to, busy, kinds)
		t.Logf("not running in the window (%v): orca %.3f s, JFR %.3f s over %d / %d threads",
			to.Sub(from).Round(time.Millisecond), o.total(), f.total(), len(o), len(f))
		for _, line := range o.diff(f) {
			t.Log(line)
		}
		if f.total() < 1 {
			t.Fatalf("JFR saw only %.3f s of blocking in the window: the load did not block (log: %s)", f.total(), logTail())
		}
		if r := o.total() / f.total(); r < 0.95 || r > 1.05 {
			t.Errorf("Orca saw %.3f s of threads not running, JFR %.3f s: ratio %.3f, want within 5 %%", o.total(), f.total(), r)
		}
		// The same JVM: the same intervals of each kind that began and ended in the window
		// (docs/format.md, "What each capture misses"; bench/jfrcmp does it for every server).
		// The two stamp an interval's ends a few µs apart (the agent's callbacks run inside JFR's
		// event), so one that begins or ends within µs of the window's edges may count on one
		// side only: 2 of either side's are let pass.
		oc, fc := countIn(t, prefix, from, to, busy, kinds), countIn(t, imp, from, to, busy, kinds)
		for _, k := range []format.Kind{format.MonitorContendedEnter, format.ObjectWait, format.ThreadPark, format.ThreadSleep} {
			t.Logf("%-22s in the window: orca %d, JFR %d", k, oc[k], fc[k])
			if d := oc[k] - fc[k]; d < -2 || d > 2 {
				t.Errorf("%s in the window: orca %d, JFR %d; the same JVM, want the same count (±2 at the edges)", k, oc[k], fc[k])
			}
		}
	}
}

// countIn reads a recording and counts, per kind that begins a state, the intervals of the
// threads whose names match keep that began at or after from and ended at or before to (wall
// clock). A wait on an int[] (a class's init lock: JFR's record of a class initialisation's
// wait, which the agent writes as ClassInitWaited) is not counted.
func countIn(t *testing.T, prefix string, from, to time.Time, keep *regexp.Regexp, kinds func(name string, begin format.Kind) bool) map[format.Kind]int {
	t.Helper()
	rec := load(t, prefix)
	mono, err1 := strconv.ParseInt(rec.info[format.InfoOriginMonoNS], 10, 64)
	unix, err2 := strconv.ParseInt(rec.info[format.InfoOriginUnixNS], 10, 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("%s.info: no %s / %s", prefix, format.InfoOriginMonoNS, format.InfoOriginUnixNS)
	}
	at := func(w time.Time) float64 { return float64(w.UnixNano()-unix+mono) / 1e9 }
	lo, hi := at(from), at(to)
	names := map[format.ThreadID]string{}
	classes := map[format.ObjectID]string{}
	type key struct {
		th   format.ThreadID
		kind format.Kind
	}
	type begun struct {
		at  float64
		obj format.ObjectID
	}
	open := map[key][]begun{}
	out := map[format.Kind]int{}
	for _, ev := range rec.events {
		ts := ev.Time.Seconds()
		switch k := ev.Kind; {
		case k == format.ThreadStarted:
			names[ev.Thread] = ev.Name
		case k == format.ObjectClass:
			classes[ev.Object] = ev.Class
		case format.Specs[k].End != format.KindNone:
			open[key{ev.Thread, k}] = append(open[key{ev.Thread, k}], begun{ts, ev.Object})
		case k.Begin() != format.KindNone:
			kk := key{ev.Thread, k.Begin()}
			st := open[kk]
			if len(st) == 0 {
				continue
			}
			b := st[len(st)-1]
			open[kk] = st[:len(st)-1]
			name := names[ev.Thread]
			if b.at < lo || ts > hi || !keep.MatchString(name) || kinds != nil && !kinds(name, k.Begin()) ||
				k.Begin() == format.ObjectWait && classes[b.obj] == "[I" {
				continue
			}
			out[k.Begin()]++
		}
	}
	return out
}

// jdkFeature returns j's feature release (17, 25), from its release file.
func jdkFeature(t *testing.T, j jdk) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(j.home, "release"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^JAVA_VERSION="(\d+)`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("%s/release: no JAVA_VERSION", j.home)
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

// tomcatBase makes a CATALINA_BASE with the servlet at /block on a free port of 127.0.0.1.
func tomcatBase(t *testing.T, classes string, virtual bool) (string, int) {
	t.Helper()
	base := newDir(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	webinf := filepath.Join(base, "webapps", "ROOT", "WEB-INF")
	for _, d := range []string{"conf", "logs", "temp", "work", webinf} {
		if err := os.MkdirAll(filepath.Join(base, d), 0o755); err != nil && !filepath.IsAbs(d) {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(webinf, 0o755); err != nil {
		t.Fatal(err)
	}
	server := fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<Server port="-1" shutdown="SHUTDOWN">
  <Service name="Catalina">
    <Connector port="%d" address="127.0.0.1" protocol="HTTP/1.1" connectionTimeout="20000"%s/>
    <Engine name="Catalina" defaultHost="localhost">
      <Host name="localhost" appBase="webapps" unpackWARs="false" autoDeploy="false"/>
    </Engine>
  </Service>
</Server>
`, port, map[bool]string{false: "", true: ` useVirtualThreads="true"`}[virtual])
	web := `<?xml version="1.0" encoding="UTF-8"?>
<web-app xmlns="https://jakarta.ee/xml/ns/jakartaee" version="6.0" metadata-complete="true">
  <servlet><servlet-name>block</servlet-name><servlet-class>orca.test.BlockingServlet</servlet-class><load-on-startup>1</load-on-startup></servlet>
  <servlet-mapping><servlet-name>block</servlet-name><url-pattern>/block</url-pattern></servlet-mapping>
</web-app>
`
	if err := os.WriteFile(filepath.Join(base, "conf", "server.xml"), []byte(server), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(webinf, "web.xml"), []byte(web), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-r", classes, filepath.Join(webinf, "classes")).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v\n%s", err, out)
	}
	return base, port
}

// waitHTTP polls url until it answers 200, the process ends (done) or the time is up.
func waitHTTP(url string, limit time.Duration, done chan error) error {
	c := http.Client{Timeout: 2 * time.Second}
	end := time.Now().Add(limit)
	for time.Now().Before(end) {
		select {
		case err := <-done:
			done <- err
			return fmt.Errorf("the server exited: %v", err)
		default:
		}
		if r, err := c.Get(url); err == nil {
			r.Body.Close()
			if r.StatusCode == 200 {
				return nil
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("no answer within %v", limit)
}

// blockedTime is, per thread name, the seconds a thread spent not running in a window.
type blockedTime map[string]float64

func (b blockedTime) total() float64 {
	s := 0.0
	for _, v := range b {
		s += v
	}
	return s
}

// diff lists the threads whose times differ most, for the log.
func (b blockedTime) diff(o blockedTime) []string {
	names := map[string]bool{}
	for n := range b {
		names[n] = true
	}
	for n := range o {
		names[n] = true
	}
	type d struct {
		name string
		a, b float64
	}
	var ds []d
	for n := range names {
		ds = append(ds, d{n, b[n], o[n]})
	}
	sort.Slice(ds, func(i, j int) bool {
		x, y := ds[i].a-ds[i].b, ds[j].a-ds[j].b
		if x < 0 {
			x = -x
		}
		if y < 0 {
			y = -y
		}
		return x > y
	})
	var out []string
	for i := 0; i < len(ds) && i < 8; i++ {
		out = append(out, fmt.Sprintf("  %-28s orca %.3f s  JFR %.3f s", ds[i].name, ds[i].a, ds[i].b))
	}
	return out
}

// notRunning reads a recording and sums, per thread whose name matches keep, the union of its
// intervals (every begin/end pair of the event table, and the parks of .ext) that end inside the
// wall-clock window [from, to], clipped to it.
func notRunning(t *testing.T, prefix string, from, to time.Time, keep *regexp.Regexp, kinds func(name string, begin format.Kind) bool) blockedTime {
	t.Helper()
	rec := load(t, prefix)
	if len(rec.parseErrs) > 0 {
		t.Fatalf("%s: %v", prefix, rec.parseErrs[0])
	}
	mono, err1 := strconv.ParseInt(rec.info[format.InfoOriginMonoNS], 10, 64)
	unix, err2 := strconv.ParseInt(rec.info[format.InfoOriginUnixNS], 10, 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("%s.info: no %s / %s", prefix, format.InfoOriginMonoNS, format.InfoOriginUnixNS)
	}
	at := func(w time.Time) float64 { return float64(w.UnixNano()-unix+mono) / 1e9 }
	lo, hi := at(from), at(to)

	type span struct {
		a, b float64
		k    format.Kind
	}
	names := map[format.ThreadID]string{}
	spans := map[format.ThreadID][]span{}
	type key struct {
		th   format.ThreadID
		kind format.Kind
	}
	open := map[key][]float64{}
	begin := func(th format.ThreadID, k format.Kind, ts float64) { open[key{th, k}] = append(open[key{th, k}], ts) }
	end := func(th format.ThreadID, k format.Kind, ts float64) {
		st := open[key{th, k}]
		if len(st) == 0 {
			return
		}
		a := st[len(st)-1]
		open[key{th, k}] = st[:len(st)-1]
		if ts < lo || ts > hi {
			return
		}
		if a < lo {
			a = lo
		}
		spans[th] = append(spans[th], span{a, ts, k})
	}
	for _, ev := range rec.events {
		ts := ev.Time.Seconds()
		switch {
		case ev.Kind == format.ThreadStarted:
			names[ev.Thread] = ev.Name
		case format.Specs[ev.Kind].End != format.KindNone:
			begin(ev.Thread, ev.Kind, ts)
		default:
			for k := format.Kind(1); k < format.NumKinds; k++ {
				if format.Specs[k].End == ev.Kind {
					end(ev.Thread, k, ts)
				}
			}
		}
	}
	// Parks that an import still keeps in .ext (a begin kind of its own).
	if r, err := reader.Open(prefix); err == nil {
		if xs, closer, err := r.Ext(); err == nil {
			const park = format.NumKinds // a key of its own
			for {
				x, err := xs.Next()
				if err != nil {
					break
				}
				switch x.Kind {
				case format.ExtThreadPark:
					begin(x.Thread, park, x.Time.Seconds())
				case format.ExtThreadUnparked:
					end(x.Thread, park, x.Time.Seconds())
				}
			}
			closer.Close()
		}
	}
	out := blockedTime{}
	for th, ss := range spans {
		name := names[th]
		if !keep.MatchString(name) {
			continue
		}
		if kinds != nil {
			ss = slices.DeleteFunc(ss, func(s span) bool { return !kinds(name, s.k) })
			if len(ss) == 0 {
				continue
			}
		}
		sort.Slice(ss, func(i, j int) bool { return ss[i].a < ss[j].a })
		sum, cur := 0.0, ss[0]
		for _, s := range ss[1:] {
			if s.a > cur.b {
				sum += cur.b - cur.a
				cur = s
			} else if s.b > cur.b {
				cur.b = s.b
			}
		}
		sum += cur.b - cur.a
		out[name] += sum
	}
	return out
}
