// Package jfrimport converts a JDK Flight Recorder recording into an Orca
// recording: jdk.JavaMonitorEnter, JavaMonitorWait, ThreadSleep,
// ThreadStart and ThreadEnd become .orca events, JFR's samples
// (ExecutionSample, CPUTimeSample, NativeMethodSample) Sample lines; what the Orca format has no
// field for (parks, a wait's notifier and timeout, a monitor's class) goes to
// PREFIX.ext. docs/jfr.md describes the mapping and its limits.
package jfrimport

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"orca/internal/format"
	"orca/internal/jfr"
)

// Options control an import.
type Options struct {
	// Progress, if set, receives a line about once a second while a
	// recording that takes longer than that is read.
	Progress io.Writer
	// Source names the recording in .info and in errors (its path).
	Source string
	// Encoding is how PREFIX.orca is written: EncodingSeed (the zero
	// value: the seed's text) or EncodingCompact (orca import's default,
	// as orca record's). .info says which (encoding=).
	Encoding format.Encoding
	// chunkBytes, for tests: format.Options.ChunkBytes of PREFIX.orca
	// (0: the writer's default).
	chunkBytes int
}

// Result tells what an import read and wrote.
type Result struct {
	Chunks          int                          // JFR chunks imported
	JFREvents       map[string]int               // JFR events converted, by type
	Skipped         map[string]int               // JFR events not converted, by "type: reason"
	Events          [format.NumKinds]int         // .orca lines written, by kind
	Ext             [format.NumExtKinds]int      // .ext lines written, by kind
	Threads         int                          // distinct threads
	Objects         int                          // distinct monitors and park blockers
	Methods         int                          // .methods lines
	Classes         int                          // .classtable lines
	OwnerUnknown    int                          // MonitorContendedEnter written without an owner, of which
	OwnerNone       int                          // … JFR named no previousOwner
	OwnerSelf       int                          // … JFR's previousOwner was the blocked thread
	OwnerEnded      int                          // … JFR's previousOwner had ended
	Settings        map[string]*Setting          // JFR's settings of the event types the import reads (jdk.ActiveSetting), by type
	TruncatedStacks int                          // distinct stacks JFR cut at its stackdepth
	JoinsFromWaits  int                          // JavaMonitorWait in Thread.join, written as ThreadJoin/Joined
	Notifies        int                          // ObjectNotify lines made from the notifiers of waits
	NotifiesDropped int                          // … not written: the notifier had ended
	DataLoss        int64                        // bytes of events JFR says it dropped (jdk.DataLoss)
	Samples         [format.NumSampleKinds]int   // Sample lines written, by kind
	SampleNS        [format.NumSampleKinds]int64 // the weight of the first sample of each kind (its period)
	SamplesFailed   int                          // jdk.CPUTimeSample without a stack (JFR failed to take it), written without frames
	SamplesLost     int64                        // CPU-time samples JFR dropped (jdk.CPUTimeSamplesLost)
	PeriodUnknown   map[string]int               // samples weighed JFR's default period: their type's period is not in the settings, by type
	Start, End      format.Time                  // first and last timestamp written
	Info            map[string]string            // facts from jdk.JVMInformation, if recorded
	Damage          []*jfr.Error                 // parts of the file that could not be read
	LostBytes       int64                        // bytes not imported; -1 when unknown (input of unknown size)
	Size            int64                        // of the input, -1 if unknown
}

func (r *Result) skip(typ, reason string) { r.Skipped[typ+": "+reason]++ }

// DamageError is returned, with the Result, when part of the recording could
// not be read; the rest was imported and the files written.
type DamageError struct {
	Source string
	Damage []*jfr.Error
	Lost   int64 // bytes not imported; -1 when unknown
	Size   int64
}

func (e *DamageError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %v", e.Source, e.Damage[0])
	if len(e.Damage) > 1 {
		fmt.Fprintf(&b, " (and %d more damaged parts)", len(e.Damage)-1)
	}
	switch {
	case e.Lost < 0:
		b.WriteString("; the rest of the file was not imported")
	case e.Size > 0:
		fmt.Fprintf(&b, "; %d of %d bytes (%.1f%%) not imported", e.Lost, e.Size, 100*float64(e.Lost)/float64(e.Size))
	default:
		fmt.Fprintf(&b, "; %d bytes not imported", e.Lost)
	}
	return b.String()
}

// ImportFile converts the JFR file at path into PREFIX.orca, .methods,
// .classtable, .info and .ext. See Import.
func ImportFile(path, prefix string, opt Options) (*Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := int64(-1)
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		size = st.Size()
	}
	if opt.Source == "" {
		opt.Source = path
	}
	return Import(f, size, prefix, opt)
}

// Import converts the JFR recording r (of size bytes, -1 if unknown) into an
// Orca recording at prefix. It holds one JFR chunk in memory at a time.
// Files are written under temporary names and renamed at the end, so a
// failed import leaves nothing behind. When part of the input is damaged
// (cut short, corrupted) the readable chunks are imported and a
// *DamageError says what was lost; when nothing is readable, no files are
// written.
func Import(r io.Reader, size int64, prefix string, opt Options) (*Result, error) {
	if opt.Source == "" {
		opt.Source = "recording"
	}
	fs, err := createFiles(prefix, opt.Encoding)
	if err != nil {
		return nil, err
	}
	if opt.chunkBytes > 0 { // before anything is written
		fs.chunkBytes = opt.chunkBytes
		fs.writer()
	}
	return convert(r, size, fs, opt)
}

// convert reads the recording and writes fs; it aborts fs on failure.
func convert(r io.Reader, size int64, fs *files, opt Options) (*Result, error) {
	res := &Result{JFREvents: map[string]int{}, Skipped: map[string]int{}, Info: map[string]string{}, Settings: map[string]*Setting{},
		PeriodUnknown: map[string]int{}, Size: size}
	im := newImporter(res)
	prog := newProgress(opt.Progress, size)
	rd := jfr.NewReader(r, size, append(slices.Clone(EventTypes), evJVM, evLoss, evSetting)...)
	var first *jfr.Header
	events := 0
	for {
		c, err := rd.NextChunk()
		if err == io.EOF {
			break
		}
		if err != nil {
			var je *jfr.Error
			if !errors.As(err, &je) {
				fs.abort()
				return nil, fmt.Errorf("reading %s: %w", opt.Source, err)
			}
			res.Damage = append(res.Damage, je)
			continue
		}
		if first == nil {
			h := c.Header
			first = &h
		}
		im.startChunk(c)
		for {
			e, err := c.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				res.Damage = append(res.Damage, err.(*jfr.Error))
				break
			}
			im.event(e)
			if events++; events%4096 == 0 {
				prog.report(e.Offset, res.Chunks, events)
			}
		}
		if err := im.flush(fs); err != nil {
			fs.abort()
			return nil, err
		}
		res.Chunks++
		prog.report(rd.Offset(), res.Chunks, events)
	}
	prog.done(rd.Offset(), res.Chunks, events)
	res.LostBytes = lost(res.Damage, size)
	if res.Chunks == 0 {
		fs.abort()
		if len(res.Damage) == 0 {
			return nil, fmt.Errorf("%s: empty file: a JFR recording starts with \"FLR\"", opt.Source)
		}
		return nil, fmt.Errorf("%s: nothing could be imported: %w%s", opt.Source, res.Damage[0], hint(res.Damage[0]))
	}
	if err := im.finish(fs, res, first, opt.Source); err != nil {
		fs.abort()
		return nil, err
	}
	if err := fs.commit(); err != nil {
		return nil, err
	}
	if len(res.Damage) > 0 {
		return res, &DamageError{Source: opt.Source, Damage: res.Damage, Lost: res.LostBytes, Size: size}
	}
	return res, nil
}

// hint says what to do about the damage that stopped an import.
func hint(e *jfr.Error) string {
	switch {
	case strings.Contains(e.Msg, "not a JFR chunk"):
		return " (is it a JFR recording? `jfr summary FILE` checks one)"
	case strings.Contains(e.Msg, "still being written"), strings.Contains(e.Msg, "cut short"):
		return " (dump a finished recording: jcmd PID JFR.dump filename=FILE, or let the JVM exit)"
	}
	return ""
}

// lost adds up the bytes the damage cost.
func lost(ds []*jfr.Error, size int64) int64 {
	var n int64
	for _, d := range ds {
		if d.Lost < 0 {
			if size < 0 {
				return -1
			}
			n += size - d.Offset
			continue
		}
		n += d.Lost
	}
	return n
}

// flush writes the current chunk's lines in time order, with the
// ThreadStarted and ObjectClass lines that introduce threads and objects
// the first time a line names them.
func (im *importer) flush(fs *files) error {
	for t, ns := range im.chunkPeriod {
		im.period[t] = ns
	}
	sortRecs(im.recs)
	for i := range im.recs {
		r := &im.recs[i]
		if r.kind == format.Sample && !im.sample(r) {
			continue
		}
		if r.kind == format.ThreadStarted {
			if r.thread.announced {
				continue // introduced already, by a line that named it
			}
			if err := im.announce(fs, r.t, r.thread); err != nil {
				return err
			}
			continue
		}
		if r.synthetic && r.thread.ended {
			im.res.NotifiesDropped++
			continue
		}
		if r.kind == format.MonitorContendedEnter && r.other != nil && r.other.ended {
			// JFR's previousOwner is the monitor's last owner that left it
			// through the VM's slow exit, not always the holder: on 25 a
			// compiled exit does not update it, and it named a thread that
			// had ended before the contention began (a previous round's
			// contender). A thread that ended cannot hold it: not named.
			r.other = nil
			im.res.OwnerUnknown++
			im.res.OwnerEnded++
		}
		if err := im.announce(fs, r.t, r.thread); err != nil {
			return err
		}
		if r.kind != format.ThreadStart { // its target is introduced by the ThreadStarted that follows
			if err := im.announce(fs, r.t, r.other); err != nil {
				return err
			}
		}
		if r.object != 0 && !im.announced[r.object] {
			im.announced[r.object] = true
			if sig := im.objClass[r.object]; sig != "" {
				// In .orca for the model (the class of a monitor or a park
				// blocker), and in .ext as before.
				if err := im.write(fs, &rec{t: r.t, kind: format.ObjectClass, thread: r.thread, object: r.object, name: sig}); err != nil {
					return err
				}
				if err := im.write(fs, &rec{t: r.t, ext: format.ExtObjectClass, object: r.object, name: sig}); err != nil {
					return err
				}
			}
		}
		if err := im.write(fs, r); err != nil {
			return err
		}
	}
	return nil
}

// defaultPeriod is the period of jdk.ExecutionSample and
// jdk.NativeMethodSample in JFR's default.jfc: the weight of their samples
// when the recording's settings do not say it.
const defaultPeriod = 20 * time.Millisecond

// sample completes a Sample line at the chunk's end, when the chunk's
// settings are known: its weight, the sampling period, for the event
// types that do not carry it. It reports false for a jdk.ExecutionSample
// of a chunk that records jdk.CPUTimeSample too: both stand for the
// threads' CPU time, which would count twice, and the CPU-time sampler's
// are exact per thread and see native code as well.
func (im *importer) sample(r *rec) bool {
	if r.jfrType == evExec && im.cpuTime {
		im.res.JFREvents[evExec]--
		im.res.skip(evExec, "the recording has jdk.CPUTimeSample, which samples the same CPU time")
		return false
	}
	if r.weight < 0 {
		r.weight = im.period[r.jfrType]
		if r.weight <= 0 {
			r.weight = int64(defaultPeriod)
			im.res.PeriodUnknown[r.jfrType]++
		}
	}
	return true
}

// announce writes a thread's ThreadStarted (and its JVM ids to .ext) the
// first time it appears: JFR has no event for threads that started before
// the recording.
func (im *importer) announce(fs *files, t format.Time, th *thread) error {
	if th == nil || th.announced {
		return nil
	}
	th.announced = true
	if err := im.write(fs, &rec{t: t, kind: format.ThreadStarted, thread: th, name: th.name}); err != nil {
		return err
	}
	if th.virtual {
		// It is virtual; JFR names no carrier (target 00000000).
		if err := im.write(fs, &rec{t: t, kind: format.VirtualThreadMounted, thread: th}); err != nil {
			return err
		}
	}
	return im.write(fs, &rec{t: t, ext: format.ExtJavaThread, thread: th})
}

func (im *importer) write(fs *files, r *rec) error {
	switch {
	case r.kind == format.KindNone:
		im.res.Ext[r.ext]++
	case r.kind == format.ThreadEnded:
		r.thread.ended = true
		fallthrough
	default:
		im.res.Events[r.kind]++
		if r.kind == format.Sample {
			if im.res.Samples[r.sampled] == 0 {
				im.res.SampleNS[r.sampled] = r.weight
			}
			im.res.Samples[r.sampled]++
		}
		if r.synthetic {
			im.res.Notifies++
		}
	}
	if !im.wrote || r.t < im.res.Start {
		im.res.Start = r.t
	}
	im.wrote = true
	im.res.End = max(im.res.End, r.t)
	return fs.writeRec(r)
}

// finish writes .methods, .classtable and .info.
func (im *importer) finish(fs *files, res *Result, first *jfr.Header, source string) error {
	out := fs.out
	for _, m := range im.methList {
		out.Method(m.first, &format.Method{ID: m.id, Name: m.key.name, Signature: m.key.descriptor, Class: m.class, Lines: lineTable(m.lines)})
	}
	for _, c := range im.classList {
		// JFR does not record source file names: the field stays empty.
		out.Class(c.first, &format.Class{ID: c.id, Signature: c.sig})
	}
	res.Methods, res.Classes = len(im.methList), len(im.classList)
	res.Threads, res.Objects = len(im.threads), len(im.objClass)

	kv := func(k string, v any) { out.Info(k, v) } // the first error sticks: out.Err below
	kv(format.InfoFormat, format.Version)
	if fs.enc != format.EncodingSeed {
		kv(format.InfoEncoding, fs.enc.String()) // as the agent: absent for the text
	}
	kv(format.InfoSource, "jfr")
	kv(format.InfoJFRFile, source)
	kv(format.InfoJFRVersion, fmt.Sprintf("%d.%d", first.Major, first.Minor))
	kv(format.InfoJFRChunks, res.Chunks)
	for _, k := range []string{format.InfoJavaVM, format.InfoJavaVersion, format.InfoJavaVMVersion, format.InfoJVMArguments, format.InfoCommand, format.InfoPID} {
		if v, ok := res.Info[k]; ok {
			kv(k, v)
		}
	}
	kv(format.InfoOriginMonoNS, first.TicksToNanos(first.StartTicks))
	kv(format.InfoOriginUnixNS, first.StartNanos)
	kv(format.InfoStart, res.Start)
	kv(format.InfoEnd, res.End)
	kv(format.InfoComplete, len(res.Damage) == 0)
	for k := format.Kind(1); k < format.NumKinds; k++ {
		kv(format.InfoKindKey(format.InfoEvents, k), res.Events[k])
	}
	for k := format.ExtKind(1); k < format.NumExtKinds; k++ {
		kv(format.InfoExtLines+k.String(), res.Ext[k])
	}
	for _, t := range slices.Sorted(maps.Keys(res.JFREvents)) {
		kv(format.InfoJFREvents+t, res.JFREvents[t])
	}
	for _, s := range slices.Sorted(maps.Keys(res.Skipped)) {
		typ, why, _ := strings.Cut(s, ": ")
		kv(format.InfoWarning, fmt.Sprintf("%d %s events skipped: %s", res.Skipped[s], typ, why))
	}
	// JFR counts what it drops in bytes (jdk.DataLoss), not events: without
	// loss dropped_total is 0; with some, the number of events is unknown.
	if res.DataLoss == 0 {
		kv(format.InfoDroppedTotal, 0)
	} else {
		kv(format.InfoJFRDataLoss, res.DataLoss)
		kv(format.InfoWarning, fmt.Sprintf("JFR dropped %d bytes of events (jdk.DataLoss): events are missing", res.DataLoss))
	}
	writeSamples(kv, res)
	kv(format.InfoOwnerUnknown, res.OwnerUnknown)
	for _, c := range []struct {
		key string
		n   int
	}{{format.InfoOwnerNoPrevious, res.OwnerNone}, {format.InfoOwnerSelf, res.OwnerSelf}, {format.InfoOwnerEnded, res.OwnerEnded}} {
		if c.n > 0 {
			kv(c.key, c.n)
		}
	}
	writeSight(kv, res.Settings)
	kv(format.InfoTruncatedStacks, res.TruncatedStacks)
	kv(format.InfoJoinsFromWaits, res.JoinsFromWaits)
	kv(format.InfoNotifiesFromWaits, res.Notifies)
	if res.NotifiesDropped > 0 {
		kv(format.InfoNotifiesDropped, res.NotifiesDropped)
	}
	kv(format.InfoThreads, res.Threads)
	kv(format.InfoObjects, res.Objects)
	kv(format.InfoMethods, res.Methods)
	kv(format.InfoClasses, res.Classes)
	if len(res.Damage) > 0 {
		if res.LostBytes >= 0 {
			kv(format.InfoJFRLostBytes, res.LostBytes)
		}
		for _, d := range res.Damage {
			kv(format.InfoWarning, d.Error())
		}
	}
	return out.Err()
}

// writeSamples writes to .info what the samples are: their periods and
// counts by kind, JFR's lost samples, and what the import had to guess.
func writeSamples(kv func(string, any), res *Result) {
	if res.Samples[format.SampleCPU] > 0 {
		kv(format.InfoSampleCPU, res.SampleNS[format.SampleCPU])
	}
	if res.Samples[format.SampleWall] > 0 {
		kv(format.InfoSampleWall, res.SampleNS[format.SampleWall])
	}
	for k := format.SampleKind(1); k < format.NumSampleKinds; k++ {
		if res.Samples[k] > 0 {
			kv(format.InfoSamples+k.String(), res.Samples[k])
		}
	}
	if res.SamplesLost > 0 {
		kv(format.InfoSamplesLost+"full", res.SamplesLost)
	}
	if res.SamplesFailed > 0 {
		kv(format.InfoWarning, fmt.Sprintf("%d jdk.CPUTimeSample events have no stack (JFR failed to take it): written as samples without frames", res.SamplesFailed))
	}
	for _, t := range slices.Sorted(maps.Keys(res.PeriodUnknown)) {
		kv(format.InfoWarning, fmt.Sprintf("the recording's settings give no period for %s: its %d samples weigh JFR's default, %v", t, res.PeriodUnknown[t], defaultPeriod))
	}
}

// progress prints a line about once a second once an import has run for a second.
type progress struct {
	w           io.Writer
	size        int64
	start, last time.Time
	printed     bool
}

func newProgress(w io.Writer, size int64) *progress {
	now := time.Now()
	return &progress{w: w, size: size, start: now, last: now}
}

func (p *progress) report(off int64, chunks, events int) {
	if p.w == nil || time.Since(p.last) < time.Second {
		return
	}
	p.last = time.Now()
	p.printed = true
	fmt.Fprintf(p.w, "orca import: %s, %d chunks, %d events\n", p.where(off), chunks, events)
}

func (p *progress) done(off int64, chunks, events int) {
	if p.w != nil && p.printed {
		fmt.Fprintf(p.w, "orca import: done: %s, %d chunks, %d events in %.1fs\n", p.where(off), chunks, events, time.Since(p.start).Seconds())
	}
}

func (p *progress) where(off int64) string {
	mb := func(n int64) string { return strconv.FormatFloat(float64(n)/(1<<20), 'f', 0, 64) }
	if p.size > 0 {
		return fmt.Sprintf("%s of %s MB (%d%%)", mb(off), mb(p.size), off*100/p.size)
	}
	return mb(off) + " MB"
}
