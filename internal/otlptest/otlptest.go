// Package otlptest runs a real OpenTelemetry Collector for the tests of
// orca push and orca record --otlp: built from its Go modules
// (testdata/otelcol: the core's OTLP receiver, the contrib file exporter),
// cached under the user's cache directory by the hash of its sources, and
// started on 127.0.0.1 with the feature gate service.profilesSupport,
// writing what it receives to a file in the proto format. Never a mock:
// what the tests decode is what a collector accepted.
package otlptest

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	commonpb "go.opentelemetry.io/proto/slim/otlp/common/v1"
	profpb "go.opentelemetry.io/proto/slim/otlp/profiles/v1development"
	"google.golang.org/protobuf/proto"
)

// sourceDir is testdata/otelcol, found from this file's own path.
func sourceDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "testdata", "otelcol")
}

// Binary returns the collector's binary, building it the first time (about
// a minute and a half on two cores; said on the test's log) into
// CACHE/orca/otelcol-HASH, HASH of its go.mod, go.sum, main.go and the Go
// version. A lock file keeps two test binaries from building it at once.
func Binary(t testing.TB) string {
	t.Helper()
	src := sourceDir()
	h := sha256.New()
	for _, f := range []string{"go.mod", "go.sum", "main.go"} {
		data, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			t.Fatalf("the collector's sources: %v", err)
		}
		h.Write(data)
	}
	h.Write([]byte(runtime.Version()))
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "orca")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "otelcol-"+hex.EncodeToString(h.Sum(nil))[:16])
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	lock, err := os.OpenFile(bin+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err == nil {
		return bin // built by another test binary while this one waited
	}
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(gobin); err != nil {
		if gobin, err = exec.LookPath("go"); err != nil {
			t.Skip("no go command to build the OpenTelemetry Collector with")
		}
	}
	t.Logf("building the OpenTelemetry Collector from its Go modules (testdata/otelcol) into %s: about 2 minutes, once", bin)
	start := time.Now()
	cmd := exec.Command(gobin, "build", "-trimpath", "-buildvcs=false", "-mod=readonly", "-o", bin+".tmp", ".")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the collector: %v\n%s", err, out)
	}
	if err := os.Rename(bin+".tmp", bin); err != nil {
		t.Fatal(err)
	}
	t.Logf("built the collector in %.0f s", time.Since(start).Seconds())
	return bin
}

// Collector is a running collector.
type Collector struct {
	t    testing.TB
	bin  string
	dir  string
	port int
	// URL is its OTLP/HTTP base endpoint, http://127.0.0.1:PORT.
	URL  string
	Out  string // the file it writes what it receives to
	cmd  *exec.Cmd
	done chan error
}

// Options change how a collector is started.
type Options struct {
	// CertFile and KeyFile, when set, make its receiver take HTTPS with
	// that certificate (URL https://).
	CertFile, KeyFile string
	// Token, when set, makes its receiver take only requests with the
	// header "Authorization: Bearer TOKEN" (bearertokenauth).
	Token string
	// MaxRequestBody, when set, is its receiver's max_request_body_size
	// (20 MiB by default): a larger body, as decompressed, is refused.
	MaxRequestBody int
}

// Start builds (or finds) the collector and starts it on a free port of
// 127.0.0.1; the test's cleanup stops it.
func Start(t testing.TB) *Collector {
	t.Helper()
	return StartWith(t, Options{})
}

// StartWith is Start with options.
func StartWith(t testing.TB, opt Options) *Collector {
	t.Helper()
	c := &Collector{t: t, bin: Binary(t), dir: t.TempDir()}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c.port = l.Addr().(*net.TCPAddr).Port
	l.Close()
	c.URL = "http://127.0.0.1:" + strconv.Itoa(c.port)
	c.Out = filepath.Join(c.dir, "profiles.pb")
	tls := ""
	if opt.CertFile != "" {
		c.URL = "https://127.0.0.1:" + strconv.Itoa(c.port)
		tls = fmt.Sprintf("\n        tls:\n          cert_file: %s\n          key_file: %s", opt.CertFile, opt.KeyFile)
	}
	if opt.MaxRequestBody > 0 {
		tls += fmt.Sprintf("\n        max_request_body_size: %d", opt.MaxRequestBody)
	}
	ext, exts := "", ""
	if opt.Token != "" {
		tls += "\n        auth:\n          authenticator: bearertokenauth"
		ext = fmt.Sprintf("extensions:\n  bearertokenauth:\n    token: %q\n", opt.Token)
		exts = "\n  extensions: [bearertokenauth]"
	}
	cfg := fmt.Sprintf(`%sreceivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:%d%s
exporters:
  file:
    path: %s
    format: proto
    append: true
    flush_interval: 100ms
service:%s
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
  pipelines:
    profiles:
      receivers: [otlp]
      exporters: [file]
`, ext, c.port, tls, c.Out, exts)
	if err := os.WriteFile(filepath.Join(c.dir, "config.yaml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	c.start()
	t.Cleanup(c.Stop)
	return c
}

func (c *Collector) start() {
	c.t.Helper()
	log, err := os.OpenFile(filepath.Join(c.dir, "collector.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		c.t.Fatal(err)
	}
	c.cmd = exec.Command(c.bin, "--config", filepath.Join(c.dir, "config.yaml"), "--feature-gates=service.profilesSupport")
	c.cmd.Stdout, c.cmd.Stderr = log, log
	// Killed with the test's process (a go test timed out or killed runs no
	// Cleanup): two collectors of TestRecordPush outlived theirs by an hour.
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := c.cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	log.Close()
	c.done = make(chan error, 1)
	go func(cmd *exec.Cmd, done chan error) { done <- cmd.Wait() }(c.cmd, c.done)
	deadline := time.Now().Add(30 * time.Second)
	for {
		conn, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(c.port), time.Second)
		if err == nil {
			conn.Close()
			return
		}
		select {
		case err := <-c.done:
			c.cmd = nil
			c.t.Fatalf("the collector exited at its start (%v):\n%s", err, c.Log())
		default:
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("the collector did not listen on 127.0.0.1:%d in 30 s:\n%s", c.port, c.Log())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Stop stops the collector (SIGTERM: it flushes its file) and waits for
// it; a stopped collector's port refuses connections.
func (c *Collector) Stop() {
	if c.cmd == nil {
		return
	}
	c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
	case <-time.After(15 * time.Second):
		c.cmd.Process.Kill()
		<-c.done
	}
	c.cmd = nil
}

// Restart starts a stopped collector again on the same port and file (the
// file exporter appends: append: true).
func (c *Collector) Restart() {
	c.t.Helper()
	c.Stop()
	c.start()
}

// Log returns the collector's log.
func (c *Collector) Log() string {
	data, _ := os.ReadFile(filepath.Join(c.dir, "collector.log"))
	return string(data)
}

// Received decodes the messages the collector wrote: the file exporter's
// proto format is each ProfilesData preceded by its length (4 bytes, big
// endian). A message not yet flushed whole is left for a later call.
func (c *Collector) Received() ([]*profpb.ProfilesData, error) {
	f, err := os.Open(c.Out)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	var out []*profpb.ProfilesData
	for {
		var n uint32
		if err := binary.Read(r, binary.BigEndian, &n); err != nil {
			return out, nil // the end, or a length not yet whole
		}
		buf := make([]byte, n)
		if _, err := io.ReadFull(r, buf); err != nil {
			return out, nil
		}
		pd := &profpb.ProfilesData{}
		if err := proto.Unmarshal(buf, pd); err != nil {
			return out, fmt.Errorf("decoding the collector's file: %w", err)
		}
		out = append(out, pd)
	}
}

// WaitReceived polls Received until ok says what arrived is complete, or
// the timeout passes (a test failure, with the collector's log).
func (c *Collector) WaitReceived(timeout time.Duration, ok func([]*profpb.ProfilesData) bool) []*profpb.ProfilesData {
	c.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		got, err := c.Received()
		if err != nil {
			c.t.Fatal(err)
		}
		if ok(got) {
			return got
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("the collector wrote %d messages in %s, not what was expected; its log:\n%s", len(got), timeout, c.Log())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Sample is one sample of what the collector received, decoded from its
// dictionary.
type Sample struct {
	Kind       string // the profile's orca.profile.kind
	Type, Unit string // the profile's sample type
	Attrs      map[string]string
	Frames     []string // function names, innermost first
	Lines      []int64
	Values     []int64
	Timestamps []uint64
	Resource   map[string]string
}

// Sum is the sum of the sample's values.
func (s Sample) Sum() int64 {
	var n int64
	for _, v := range s.Values {
		n += v
	}
	return n
}

// Samples flattens received messages into their samples.
func Samples(pds []*profpb.ProfilesData) []Sample {
	var out []Sample
	for _, pd := range pds {
		d := pd.Dictionary
		str := func(i int32) string { return d.StringTable[i] }
		// The collector (pdata) may move strings into the string table:
		// string_value_strindex, key_strindex (common.proto 1.11).
		value := func(v *commonpb.AnyValue) string {
			switch x := v.GetValue().(type) {
			case *commonpb.AnyValue_StringValue:
				return x.StringValue
			case *commonpb.AnyValue_StringValueStrindex:
				return str(x.StringValueStrindex)
			case *commonpb.AnyValue_BoolValue:
				return strconv.FormatBool(x.BoolValue)
			case *commonpb.AnyValue_IntValue:
				return strconv.FormatInt(x.IntValue, 10)
			}
			return fmt.Sprint(v)
		}
		attrs := func(idx []int32) map[string]string {
			m := map[string]string{}
			for _, i := range idx {
				a := d.AttributeTable[i]
				m[str(a.KeyStrindex)] = value(a.Value)
			}
			return m
		}
		for _, rp := range pd.ResourceProfiles {
			res := map[string]string{}
			for _, kv := range rp.Resource.GetAttributes() {
				k := kv.Key
				if k == "" {
					k = str(kv.KeyStrindex)
				}
				res[k] = value(kv.Value)
			}
			for _, sp := range rp.ScopeProfiles {
				for _, p := range sp.Profiles {
					kind := attrs(p.AttributeIndices)["orca.profile.kind"]
					for _, s := range p.Samples {
						o := Sample{Kind: kind, Type: str(p.SampleType.TypeStrindex), Unit: str(p.SampleType.UnitStrindex),
							Attrs: attrs(s.AttributeIndices), Values: s.Values, Timestamps: s.TimestampsUnixNano, Resource: res}
						for _, li := range d.StackTable[s.StackIndex].LocationIndices {
							for _, ln := range d.LocationTable[li].Lines {
								o.Frames = append(o.Frames, str(d.FunctionTable[ln.FunctionIndex].NameStrindex))
								o.Lines = append(o.Lines, ln.Line)
							}
						}
						out = append(out, o)
					}
				}
			}
		}
	}
	return out
}

// CheckBlame checks that the contentions and the delay per lock and per
// owner in ss (the monitor and juc profiles) are those of reportJSON,
// orca report --json's output: a lock's contentions ended and open and its
// blocked time, each owner's contentions (and open ones) and its blame, to
// the nanosecond (the JSON's seconds have nine decimals). It returns how
// many locks and owners it compared.
func CheckBlame(t testing.TB, reportJSON []byte, ss []Sample) (locks, owners int) {
	t.Helper()
	var r struct {
		Locks []struct {
			Object, Kind      string
			Contentions, Open int
			BlockedS          float64 `json:"blocked_s"`
			OpenS             float64 `json:"open_s"`
			Owners            []struct {
				Thread            string
				Contentions, Open int
				BlamedS           float64 `json:"blamed_s"`
			}
		}
	}
	if err := json.Unmarshal(reportJSON, &r); err != nil {
		t.Fatalf("orca report --json: %v", err)
	}
	got := map[string]int64{} // by "kind/object[/owner] type"
	for _, s := range ss {
		if s.Kind != "monitor" && s.Kind != "juc" {
			continue
		}
		lock := s.Attrs["lock.kind"] + "/" + s.Attrs["lock.id"]
		got[lock+" "+s.Type] += s.Sum()
		if o := s.Attrs["lock.owner.thread.id"]; o != "" {
			got[lock+"/"+o+" "+s.Type] += s.Sum()
		}
	}
	ns := func(s float64) int64 { return int64(math.Round(s * 1e9)) }
	check := func(what string, count, want int64, delay, wantDelay int64) {
		if count != want || delay-wantDelay > 2 || wantDelay-delay > 2 {
			t.Errorf("%s: %d contentions and %d ns pushed, the report has %d and %d ns", what, count, delay, want, wantDelay)
		}
	}
	for _, l := range r.Locks {
		if l.Kind != "monitor" && l.Kind != "juc" {
			continue
		}
		lock := l.Kind + "/" + l.Object
		check(lock, got[lock+" contentions"], int64(l.Contentions+l.Open), got[lock+" delay"], ns(l.BlockedS)+ns(l.OpenS))
		locks++
		for _, o := range l.Owners {
			if o.Thread == "00000000" {
				continue // unknown: no owner attribute
			}
			k := lock + "/" + o.Thread
			check(lock+" owner "+o.Thread, got[k+" contentions"], int64(o.Contentions+o.Open), got[k+" delay"], ns(o.BlamedS))
			owners++
		}
	}
	return locks, owners
}

// CheckAddsUp checks that the samples of a series of pushes of
// consecutive ranges (pushed, in pushes requests) add up to those of the
// whole recording's one request: every sum per profile, lock (lock.id) and
// thread (thread.id), and per profile, lock, owner
// (lock.owner.thread.id) and thread. Exact, but for one thing: a
// contention on at a range's start is restated there with the owner it
// blocked on, not the owner then (reader.Span's restatement), so the first
// stretch of a contention whose owner changed before the range can move
// from its owner to the unknown owner (or another); its thread's delay on
// the lock stays exact. Those moves are logged, and must be few (1 %). It
// returns how many sums it compared and how many delays moved.
func CheckAddsUp(t testing.TB, whole, pushed []Sample, pushes int) (sums, moved int) {
	t.Helper()
	// Keyed by profile, lock and thread, and by profile, lock, owner and
	// thread.
	sum := func(ss []Sample) map[string]int64 {
		m := map[string]int64{}
		for _, s := range ss {
			k := s.Kind + "/" + s.Type + " " + s.Attrs["lock.id"] + " " + s.Attrs["thread.id"]
			m[k] += s.Sum()
			m[k+" owner "+s.Attrs["lock.owner.thread.id"]] += s.Sum()
		}
		for k, v := range m {
			if v == 0 {
				delete(m, k)
			}
		}
		return m
	}
	w, p := sum(whole), sum(pushed)
	ownerDelay := func(k string) bool { return strings.Contains(k, "/delay ") && strings.Contains(k, " owner ") }
	bad := 0
	for _, k := range slices.Sorted(maps.Keys(w)) {
		if p[k] == w[k] {
			continue
		}
		if ownerDelay(k) {
			moved++
			t.Logf("%s: %d ns in %d pushes, %d ns in the whole recording", k, p[k], pushes, w[k])
			continue
		}
		if bad++; bad <= 10 {
			t.Errorf("%s: %d in %d pushes, %d in the whole recording", k, p[k], pushes, w[k])
		}
	}
	for k, v := range p {
		if _, ok := w[k]; !ok && !ownerDelay(k) {
			if bad++; bad <= 10 {
				t.Errorf("%s: %d in %d pushes, none in the whole recording", k, v, pushes)
			}
		}
	}
	if bad > 0 || moved > len(w)/100 {
		t.Errorf("%d of %d sums differ, %d delays moved between owners", bad, len(w), moved)
	}
	return len(w), moved
}
