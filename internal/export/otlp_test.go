package export

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	collpb "go.opentelemetry.io/proto/slim/otlp/collector/profiles/v1development"
	profpb "go.opentelemetry.io/proto/slim/otlp/profiles/v1development"
	"google.golang.org/protobuf/proto"

	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/otlptest"
	"orca/internal/reader"
	"orca/internal/synth"
)

// otlpSamples builds the OTLP request of a model and decodes it as a
// receiver would: marshalled, unmarshalled, its samples flattened.
func otlpSamples(t *testing.T, rec *reader.Recording, m *model.Model, opt OTLPOptions) []otlptest.Sample {
	t.Helper()
	req, err := OTLP(rec, m, opt)
	if err != nil {
		t.Fatal(err)
	}
	return received(t, req)
}

// received decodes req as a receiver would (marshalled, unmarshalled,
// checkOTLPTables) and flattens its samples.
func received(t *testing.T, req *collpb.ExportProfilesServiceRequest) []otlptest.Sample {
	t.Helper()
	raw, err := proto.Marshal(&profpb.ProfilesData{ResourceProfiles: req.ResourceProfiles, Dictionary: req.Dictionary})
	if err != nil {
		t.Fatal(err)
	}
	pd := &profpb.ProfilesData{}
	if err := proto.Unmarshal(raw, pd); err != nil {
		t.Fatal(err)
	}
	checkOTLPTables(t, pd)
	return otlptest.Samples([]*profpb.ProfilesData{pd})
}

// checkOTLPTables checks what the proto requires of a request: every
// dictionary table's entry 0 is its zero value, every index is in its
// table, every sample has values, as many timestamps or none.
func checkOTLPTables(t *testing.T, pd *profpb.ProfilesData) {
	t.Helper()
	d := pd.Dictionary
	if d.StringTable[0] != "" || len(d.StackTable[0].LocationIndices) != 0 || d.AttributeTable[0].KeyStrindex != 0 ||
		d.FunctionTable[0].NameStrindex != 0 || len(d.LocationTable[0].Lines) != 0 || len(d.MappingTable) != 1 {
		t.Errorf("a dictionary table's entry 0 is not its zero value")
	}
	for _, st := range d.StackTable {
		for _, li := range st.LocationIndices {
			if li <= 0 || int(li) >= len(d.LocationTable) {
				t.Fatalf("location index %d of %d", li, len(d.LocationTable))
			}
		}
	}
	for _, rp := range pd.ResourceProfiles {
		for _, sp := range rp.ScopeProfiles {
			for _, p := range sp.Profiles {
				if len(p.Samples) == 0 {
					t.Errorf("an empty profile")
				}
				for _, s := range p.Samples {
					if s.StackIndex <= 0 || int(s.StackIndex) >= len(d.StackTable) {
						t.Fatalf("stack index %d of %d", s.StackIndex, len(d.StackTable))
					}
					if len(s.Values) == 0 || len(s.TimestampsUnixNano) != 0 && len(s.TimestampsUnixNano) != len(s.Values) {
						t.Errorf("a sample with %d values and %d timestamps", len(s.Values), len(s.TimestampsUnixNano))
					}
					for _, a := range s.AttributeIndices {
						if a <= 0 || int(a) >= len(d.AttributeTable) {
							t.Fatalf("attribute index %d of %d", a, len(d.AttributeTable))
						}
					}
				}
			}
		}
	}
}

// TestOTLPOwnerChange pushes the model case of a contention whose owner
// changed while it waited: C's 2.5 s are split, 1.5 s on a and 1 s on b,
// so the delay per lock.owner.thread.name is the report's blame (a 3.5 s,
// b 1 s), each contention counted once on its last owner; the pprof
// export's labels say the same.
func TestOTLPOwnerChange(t *testing.T) {
	rec, m := load(t, "../model/testdata/cases/owner-change.txtar")
	ss := otlpSamples(t, rec, m, OTLPOptions{})
	delay, count := map[string]int64{}, map[string]int64{}
	for _, s := range ss {
		if s.Kind != "monitor" {
			t.Fatalf("a %s profile in a recording of monitors alone", s.Kind)
		}
		if s.Attrs[AttrLockKind] != "monitor" || s.Attrs[AttrLockID] != "0000AAAA" || s.Frames[0] == "" {
			t.Errorf("sample attributes %v, frames %v", s.Attrs, s.Frames)
		}
		o := s.Attrs[AttrLockOwnerName] + "/" + s.Attrs[AttrLockOwnerID] + " <- " + s.Attrs[AttrThreadName]
		switch s.Type {
		case "delay":
			delay[o] += s.Sum()
		case "contentions":
			count[o] += s.Sum()
		}
	}
	wantDelay := map[string]int64{"a/0000000A <- b": 2e9, "a/0000000A <- c": 1.5e9, "b/0000000B <- c": 1e9}
	wantCount := map[string]int64{"a/0000000A <- b": 1, "b/0000000B <- c": 1}
	if !equalMaps(delay, wantDelay) || !equalMaps(count, wantCount) {
		t.Errorf("delay by owner %v, want %v; contentions %v, want %v", delay, wantDelay, count, wantCount)
	}

	// pprof: the same names as labels, the same sums.
	p, err := profile.Parse(bytes.NewReader(export(t, "pprof", rec, m, Monitor)))
	if err != nil {
		t.Fatal(err)
	}
	pdelay := map[string]int64{}
	for _, s := range p.Sample {
		l := func(k string) string { return strings.Join(s.Label[k], ",") }
		if l(AttrLockKind) != "monitor" || l(AttrLockClass) != l("class") || l(AttrThreadName) != l("thread") {
			t.Errorf("pprof labels %v", s.Label)
		}
		pdelay[l(AttrLockOwnerName)+"/"+l(AttrLockOwnerID)+" <- "+l(AttrThreadName)] += s.Value[1]
	}
	if !equalMaps(pdelay, wantDelay) {
		t.Errorf("pprof: delay by lock.owner.thread.name %v, want %v", pdelay, wantDelay)
	}
}

func equalMaps(a, b map[string]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestOTLPEveryCase builds the OTLP request of every model and report test
// case and checks it against the model's locks: per monitor and
// java.util.concurrent lock, the contentions (ended and open) and the
// blocked time; per owner, its contentions and its blame (Lock.Owners,
// what orca report prints), to the nanosecond. A j.u.c. acquire parked
// more than once is one contention, its re-park gaps blamed (juc-lock.txtar).
func TestOTLPEveryCase(t *testing.T) {
	var paths []string
	for _, g := range []string{"testdata/*.txtar", "../model/testdata/cases/*.txtar", "../report/testdata/*.txtar"} {
		p, _ := filepath.Glob(g)
		paths = append(paths, p...)
	}
	for _, path := range paths {
		t.Run(filepath.Base(filepath.Dir(path))+"/"+filepath.Base(path), func(t *testing.T) {
			rec, m := load(t, path)
			ss := otlpSamples(t, rec, m, OTLPOptions{Samples: true})
			got := map[string]int64{}
			for _, s := range ss {
				if s.Kind != "monitor" && s.Kind != "juc" {
					if _, ok := s.Attrs[AttrLockOwnerName]; ok {
						t.Errorf("a %s sample with an owner: %v", s.Kind, s.Attrs)
					}
					continue
				}
				lock := s.Attrs[AttrLockKind] + "/" + s.Attrs[AttrLockID]
				got[lock+" "+s.Type] += s.Sum()
				if o := s.Attrs[AttrLockOwnerID]; o != "" {
					got[lock+"/"+o+" "+s.Type] += s.Sum()
				}
			}
			want := map[string]int64{}
			for _, l := range m.Locks {
				if l.Kind != model.Monitor && l.Kind != model.JUCLock || !l.Contended() {
					continue
				}
				lock := l.Kind.String() + "/" + l.Object.String()
				want[lock+" contentions"] = int64(l.Contentions + l.Open)
				want[lock+" delay"] = int64(l.Blocked + l.OpenTime)
				for _, o := range l.Owners {
					if o.Thread == 0 {
						continue
					}
					if n := o.Contentions + o.Open; n > 0 {
						want[lock+"/"+o.Thread.String()+" contentions"] = int64(n)
					}
					if o.Blamed > 0 {
						want[lock+"/"+o.Thread.String()+" delay"] = int64(o.Blamed)
					}
				}
			}
			for k, v := range got {
				if v == 0 {
					delete(got, k)
				}
			}
			if !equalMaps(got, want) {
				t.Errorf("pushed %v\nthe model's locks %v", got, want)
			}
			// A model built without the locks' figures and the edges,
			// as a push builds it (cmd/orca's pushloop), pushes the same.
			lean, err := model.Build(rec, model.Options{NoEdges: true, NoLockFigures: true})
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range []OTLPOptions{{Samples: true}, {Samples: true, From: m.Start + (m.End-m.Start)/3, Partial: true}} {
				if a, b := otlpBytes(t, rec, m, o), otlpBytes(t, rec, lean.Model, o); !bytes.Equal(a, b) {
					t.Errorf("%+v: the request of the model without lock figures differs (%d bytes, %d with)", o, len(b), len(a))
				}
			}
		})
	}
}

// otlpBytes is OTLP's request, marshalled.
func otlpBytes(t *testing.T, rec *reader.Recording, m *model.Model, opt OTLPOptions) []byte {
	t.Helper()
	req, err := OTLP(rec, m, opt)
	if err != nil {
		t.Fatal(err)
	}
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestOTLPSamples pushes the samples recording of internal/testrec: the cpu
// profile holds the 9 CPU samples, 90 ms; the wall one all 12, 240 ms,
// each with its thread and orca.sampled.
func TestOTLPSamples(t *testing.T) {
	rec, m := loadSamples(t, format.EncodingCompact)
	ss := otlpSamples(t, rec, m, OTLPOptions{Samples: true, Kinds: Monitor})
	sums := map[string]int64{}
	for _, s := range ss {
		sums[s.Kind+"/"+s.Type] += s.Sum()
		if (s.Kind == "cpu" || s.Kind == "wall") && (s.Attrs[AttrThreadName] == "" || s.Attrs[AttrSampled] == "") {
			t.Errorf("a %s sample without thread.name or orca.sampled: %v", s.Kind, s.Attrs)
		}
	}
	want := map[string]int64{"cpu/samples": 9, "cpu/cpu": 90e6, "wall/samples": 12, "wall/wall": 240e6, "monitor/contentions": 1, "monitor/delay": 100e6}
	if !equalMaps(sums, want) {
		t.Errorf("pushed %v, want %v", sums, want)
	}
}

// TestOTLPRangesAddUp pushes a synthetic busy server's recording as
// orca record --otlp does, in consecutive ranges (each range's model
// restating the states on at its start; OTLPOptions.From and Partial:
// a state counted in the push it began in, a contention in the push it
// ended in, on the owner that let it in): the sums of the pushes per lock,
// owner and thread, contentions and delay, are the whole recording's.
// Counting a j.u.c. contention where it began put it on the owner at the
// range's end, not the one that let it in (24 sums differed).
func TestOTLPRangesAddUp(t *testing.T) {
	rec, m := synthBusy(t, 600_000)
	whole := otlpSamples(t, rec, m, OTLPOptions{})

	first, last, _, err := rec.TimeBounds()
	if err != nil {
		t.Fatal(err)
	}
	var pushed []otlptest.Sample
	const n = 7
	from := first
	for i := 1; i <= n; i++ {
		to := first + (last-first)*format.Time(i)/n
		span, err := rec.Span(from, to)
		if err != nil {
			t.Fatal(err)
		}
		res, err := model.Build(rec, model.Options{Span: span})
		if err != nil {
			t.Fatal(err)
		}
		opt := OTLPOptions{Partial: i < n}
		if i > 1 {
			opt.From = from
		}
		pushed = append(pushed, otlpSamples(t, rec, res.Model, opt)...)
		from = to
	}
	otlptest.CheckAddsUp(t, whole, pushed, n)
}

var update = flag.Bool("update", false, "rewrite testdata/otlp.*.txt")

// TestOTLPGolden: the OTLP requests of every model and report test case,
// decoded as a receiver reads them (each sample's profile, type, stack,
// attributes, values and timestamps, in the request's order), are those of
// testdata/otlp.every-case.txt: a push built more cheaply (the attribute
// caches, the sample keys) must push what it pushed before, sample for
// sample, the whole recording and a range of it as a push of the series
// after the first sees it (From, Partial).
func TestOTLPGolden(t *testing.T) {
	var paths []string
	for _, g := range []string{"testdata/*.txtar", "../model/testdata/cases/*.txtar", "../report/testdata/*.txtar"} {
		p, _ := filepath.Glob(g)
		paths = append(paths, p...)
	}
	var got strings.Builder
	var reuse model.Reuse // every case's cached model's, as a push's
	for _, path := range paths {
		rec, m := load(t, path)
		lean, err := model.Build(rec, model.Options{NoEdges: true, NoLockFigures: true})
		if err != nil {
			t.Fatal(err)
		}
		// The same requests through an OTLPCache, as a series of pushes
		// of the recording makes them, the second with what the first
		// left in it (the models built with its stack table), and without
		// the runnable time's split (NoRunSplit) nor the threads' times
		// (NoThreadTimes) nor the wait-for graph (NoWaitGraph) nor the parks' locks (NoParkLocks), with the memory of the case before (Reuse: the
		// objects numbered, Model.Object; the locks found there,
		// Model.Lock), as a push builds them.
		cache := NewOTLPCache()
		cached, err := model.Build(rec, model.Options{NoEdges: true, NoLockFigures: true, NoRunSplit: true, NoThreadTimes: true,
			NoWaitGraph: true, NoParkLocks: true, Stacks: cache.Stacks(), Reuse: &reuse})
		if err != nil {
			t.Fatal(err)
		}
		checkObjectNumbers(t, path, cached.Model)
		for _, o := range []OTLPOptions{{Samples: true}, {Samples: true, From: m.Start + (m.End-m.Start)/3, Partial: true}} {
			fmt.Fprintf(&got, "== %s/%s from=%d partial=%v\n", filepath.Base(filepath.Dir(path)), filepath.Base(path), o.From, o.Partial)
			req := &collpb.ExportProfilesServiceRequest{}
			body := otlpBytes(t, rec, lean.Model, o)
			if err := proto.Unmarshal(body, req); err != nil {
				t.Fatal(err)
			}
			oc := o
			oc.Cache = cache
			if cb := otlpBytes(t, rec, cached.Model, oc); !bytes.Equal(cb, body) {
				t.Errorf("%s from=%d: the request through an OTLPCache differs (%d bytes, %d without)", path, o.From, len(cb), len(body))
			}
			pd := &profpb.ProfilesData{ResourceProfiles: req.ResourceProfiles, Dictionary: req.Dictionary}
			checkOTLPTables(t, pd) // a later push's too: no empty profile
			for _, s := range otlptest.Samples([]*profpb.ProfilesData{pd}) {
				got.WriteString(goldenSample(s))
			}
		}
	}
	const golden = "testdata/otlp.every-case.txt"
	if *update {
		if err := os.WriteFile(golden, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test -run TestOTLPGolden -update writes it)", err)
	}
	if got.String() != string(want) {
		// The first line that differs (the two share everything before
		// it): the case and the sample.
		g, w := got.String(), string(want)
		i := 0
		for i < len(g) && i < len(w) && g[i] == w[i] {
			i++
		}
		start := strings.LastIndexByte(g[:i], '\n') + 1
		line := strings.Count(g[:start], "\n") + 1
		t.Fatalf("%s: line %d differs (go test -run TestOTLPGolden -update rewrites it):\ngot  %s\nwant %s", golden, line, firstLine(g[start:]), firstLine(w[start:]))
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// goldenSample is one line of s: the resource (the recording's path, the
// pid) left out.
func goldenSample(s otlptest.Sample) string {
	var attrs []string
	for k, v := range s.Attrs {
		attrs = append(attrs, k+"="+v)
	}
	slices.Sort(attrs)
	var vals []string
	for i, v := range s.Values {
		if i < len(s.Timestamps) {
			vals = append(vals, fmt.Sprintf("%d@%d", v, s.Timestamps[i]))
		} else {
			vals = append(vals, fmt.Sprint(v))
		}
	}
	frames := make([]string, len(s.Frames))
	for i, f := range s.Frames {
		frames[i] = f
		if i < len(s.Lines) {
			frames[i] += fmt.Sprintf(":%d", s.Lines[i])
		}
	}
	return fmt.Sprintf("%s %s/%s [%s] {%s} %s\n", s.Kind, s.Type, s.Unit, strings.Join(frames, ";"), strings.Join(attrs, " "), strings.Join(vals, " "))
}

// TestOTLPCacheLearnsMethods: a frame whose method the recording's tables
// do not have yet (a push's: the agent writes .methods as it goes) is not
// kept numbered by an OTLPCache: the next request of the series names it
// once the table has it. Each request is the one built without a cache,
// byte for byte (OTLPCache numbers a frame's location and a method's
// function once, frameLoc).
func TestOTLPCacheLearnsMethods(t *testing.T) {
	rec, _ := loadAll(t)
	const late = format.MethodID(0x2A) // testdata/all.txtar's unknown method
	if rec.Methods[late] != nil {
		t.Fatal("method 0x2A is known: the test needs it unknown")
	}
	var known *format.Method
	for _, m := range rec.Methods {
		if known == nil || m.ID < known.ID {
			known = m
		}
	}
	cache := NewOTLPCache()
	cached, err := model.Build(rec, model.Options{NoEdges: true, NoLockFigures: true, NoRunSplit: true, Stacks: cache.Stacks()})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := model.Build(rec, model.Options{NoEdges: true, NoLockFigures: true})
	if err != nil {
		t.Fatal(err)
	}
	o := OTLPOptions{Samples: true}
	oc := o
	oc.Cache = cache
	for _, step := range []string{"unknown", "learnt"} {
		if step == "learnt" {
			rec.Methods[late] = &format.Method{ID: late, Name: "learntLate", Signature: "()V", Class: known.Class}
		}
		want := otlpBytes(t, rec, plain.Model, o)
		got := otlpBytes(t, rec, cached.Model, oc)
		if !bytes.Equal(got, want) {
			t.Errorf("method %s: the request through the OTLPCache differs (%d bytes, %d without)", step, len(got), len(want))
		}
		if named := bytes.Contains(got, []byte("learntLate")); named != (step == "learnt") {
			t.Errorf("method %s: the request names it: %v", step, named)
		}
	}
}

// TestOTLPOtherKind: otherKind names the kind whose has is true, of
// those other than the contentions', for every state, acquire or not.
func TestOTLPOtherKind(t *testing.T) {
	for s := model.State(0); s < model.NumStates; s++ {
		for _, acq := range []bool{false, true} {
			iv := &model.Interval{State: s, Acquire: acq}
			want := len(otlpKinds)
			for i := kindWait; i < len(otlpKinds); i++ {
				if otlpKinds[i].has(iv) {
					want = i
					break
				}
			}
			if got := otherKind(iv); got != want {
				t.Errorf("%v acquire %v: otherKind %d, has says %d", s, acq, got, want)
			}
		}
	}
	if otlpKinds[kindWait].name != "wait" || otlpKinds[kindIdle].name != "idle" {
		t.Error("the kind indexes do not follow otlpKinds")
	}
}

// checkObjectNumbers: a model built with Options.Reuse numbers the
// objects of its locks and of its states (a park's, whose lock
// Options.NoParkLocks does not keep) densely from 1 (Model.Object), each
// with the class Model.Class tells.
func checkObjectNumbers(t *testing.T, path string, m *model.Model) {
	t.Helper()
	seen := map[int]format.ObjectID{}
	objs := map[format.ObjectID]bool{}
	for _, l := range m.Locks {
		objs[l.Object] = true
	}
	for _, th := range m.AllThreads() {
		for _, iv := range th.Intervals {
			if iv.Object != 0 {
				objs[iv.Object] = true
			}
		}
	}
	for obj := range objs {
		num, class := m.Object(obj)
		if num <= 0 {
			t.Errorf("%s: object %v has no number", path, obj)
			continue
		}
		if o, ok := seen[num]; ok && o != obj {
			t.Errorf("%s: objects %v and %v are both number %d", path, o, obj, num)
		}
		seen[num] = obj
		if c := m.Class(obj); class != c {
			t.Errorf("%s: object %v: class %q, Class says %q", path, obj, class, c)
		}
	}
	for num := range seen {
		if num > 2*len(seen) {
			t.Errorf("%s: object number %d of %d objects: not dense", path, num, len(seen))
		}
	}
}

// TestOTLPSplit cuts every model and report case's request (and the
// synthetic busy server's, of thousands of samples) into requests of at most
// a few hundred bytes to a few kB (SplitOTLP): each encodes as SplitOTLP
// says and within the size, unless it holds one sample; each is a whole
// request (checkOTLPTables: its dictionary's entries 0 zero, every index in
// its table, no empty profile); together, decoded as a receiver would,
// they hold req's samples in req's order with the same stacks, attributes,
// values and timestamps (goldenSample's line of each), and the same
// resource and profile attributes.
func TestOTLPSplit(t *testing.T) {
	var paths []string
	for _, g := range []string{"testdata/*.txtar", "../model/testdata/cases/*.txtar", "../report/testdata/*.txtar"} {
		p, _ := filepath.Glob(g)
		paths = append(paths, p...)
	}
	type input struct {
		name string
		req  *collpb.ExportProfilesServiceRequest
	}
	var ins []input
	for _, path := range paths {
		rec, m := load(t, path)
		req, err := OTLP(rec, m, OTLPOptions{Samples: true})
		if err != nil {
			t.Fatal(err)
		}
		ins = append(ins, input{filepath.Base(path), req})
	}
	rec, m := synthBusy(t, 300_000)
	req, err := OTLP(rec, m, OTLPOptions{Samples: true})
	if err != nil {
		t.Fatal(err)
	}
	ins = append(ins, input{"synth", req})
	decode := func(reqs ...*collpb.ExportProfilesServiceRequest) (lines []string) {
		for _, r := range reqs {
			for _, s := range received(t, r) {
				res := fmt.Sprint(s.Resource)
				lines = append(lines, res+" "+goldenSample(s))
			}
		}
		return lines
	}
	split := 0
	for _, in := range ins {
		whole := decode(in.req)
		wholeRaw, err := AppendOTLP(nil, in.req)
		if err != nil {
			t.Fatal(err)
		}
		for _, max := range []int{400, 3000, 50000, len(wholeRaw)} {
			reqs, raws, err := SplitOTLP(in.req, max)
			if err != nil {
				t.Fatal(err)
			}
			if len(reqs) != len(raws) || len(whole) > 0 && len(reqs) == 0 {
				t.Fatalf("%s max %d: %d requests, %d encodings", in.name, max, len(reqs), len(raws))
			}
			if max >= len(wholeRaw) && (len(reqs) != 1 || reqs[0] != in.req) {
				t.Errorf("%s: a request that fits was split (%d)", in.name, len(reqs))
			}
			samples := 0
			for i, r := range reqs {
				b, err := AppendOTLP(nil, r)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(b, raws[i]) {
					t.Fatalf("%s max %d: request %d's encoding is not the one returned", in.name, max, i)
				}
				n := len(decode(r))
				samples += n
				if len(b) > max && n > 1 {
					t.Errorf("%s max %d: request %d is %d bytes with %d samples", in.name, max, i, len(b), n)
				}
			}
			if got := decode(reqs...); !slices.Equal(got, whole) {
				t.Errorf("%s max %d: %d requests hold %d samples, not the whole request's %d the same, in order", in.name, max, len(reqs), len(got), len(whole))
				for i := range min(len(got), len(whole)) {
					if got[i] != whole[i] {
						t.Fatalf("first difference, sample %d:\n got  %s want %s", i, got[i], whole[i])
					}
				}
			}
			if len(reqs) > 1 {
				split++
			}
			// The profiles' own attributes (orca.profile.kind) and types
			// say the same: OTLPTotals of the parts add up to the whole's.
			sum := map[string]int64{}
			for _, tt := range OTLPTotals(in.req) {
				sum[tt.Kind+"/"+tt.Type+"/"+tt.Unit] += tt.Sum
			}
			for _, r := range reqs {
				for _, tt := range OTLPTotals(r) {
					sum[tt.Kind+"/"+tt.Type+"/"+tt.Unit] -= tt.Sum
				}
			}
			for k, v := range sum {
				if v != 0 {
					t.Errorf("%s max %d: %s differs by %d between the parts and the whole", in.name, max, k, v)
				}
			}
		}
	}
	if split < len(ins) {
		t.Errorf("only %d of %d cases' requests were split at the smallest sizes", split, len(ins))
	}
}

// synthBusy is the model of a synthetic busy server's recording of size
// bytes (24 threads, 12 monitors, compact).
func synthBusy(t *testing.T, size int64) (*reader.Recording, *model.Model) {
	t.Helper()
	prefix := filepath.Join(t.TempDir(), "syn")
	if _, err := synth.WriteRecording(prefix, synth.Options{Threads: 24, Monitors: 12, Size: size, Encoding: format.EncodingCompact}); err != nil {
		t.Fatal(err)
	}
	rec, err := reader.Open(prefix)
	if err != nil {
		t.Fatal(err)
	}
	res, err := model.Build(rec, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return rec, res.Model
}
