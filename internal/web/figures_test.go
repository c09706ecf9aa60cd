package web

import (
	"bytes"
	"encoding/json"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"orca/internal/export"
	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/report"
)

// TestOneFigure is issue 31, item 7: the report (text and JSON), the
// viewer's API and the pprof and folded exports of one recording give the
// same figures — each owner's blame and share, the hangs and their count,
// the hung threads in the THREADS top 10, and one name per lock (the JVM's
// lock of a class being initialised is "class initialisation of X"
// everywhere, never int[] nor "monitor class initialisation"). On Bank.java
// (a new user's program: a hot synchronized cache, a lock-order deadlock
// with an auditor behind it, a producer/consumer, a forgotten latch,
// System.exit at the end) recorded on the JDK, and on the report's golden
// cases (clinit.txtar: an init lock's contention).
func TestOneFigure(t *testing.T) {
	recs := map[string]*recording{}
	for _, name := range []string{"clinit", "contention", "deadlock", "hang", "juc-deadlock", "shutdown", "behind"} {
		recs["report case "+name] = fromTxtar(t, filepath.Join("../report/testdata", name+".txtar"))
	}
	if r, why := recordJava(t, "bank", "internal/web/testdata/Bank.java"); r != nil {
		recs["Bank.java"] = r
	} else {
		t.Logf("no Bank.java recording: %s", why)
	}
	for name, r := range recs {
		t.Run(name, func(t *testing.T) { oneFigure(t, r) })
	}
	if r := recs["Bank.java"]; r != nil {
		t.Run("Bank.java facts", func(t *testing.T) { bankFacts(t, r) })
	}
}

// reportOf builds the report as orca report does, its text and its JSON
// decoded as a tool reads it.
func reportOf(t *testing.T, r *recording, top int) (*report.Report, string, *report.Report) {
	t.Helper()
	rep := report.New(r.rec, r.res, report.Options{Top: top})
	var text, js bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var dec report.Report
	if err := json.Unmarshal(js.Bytes(), &dec); err != nil {
		t.Fatal(err)
	}
	return rep, text.String(), &dec
}

var headHangs = regexp.MustCompile(`(?m)^  (?:DEADLOCKS: \d+|deadlocks: \S+( visible)?)   (?:HANGS: (\d+)|hangs: 0)`)

func oneFigure(t *testing.T, r *recording) {
	ts := serve(t, r)
	_, text, js := reportOf(t, r, 10)

	// Hangs: the JSON's list, the text's headline and the viewer's count.
	m1 := headHangs.FindStringSubmatch(text)
	if m1 == nil {
		t.Fatalf("no headline in the text:\n%s", text)
	}
	textHangs := 0
	if m1[2] != "" {
		textHangs, _ = strconv.Atoi(m1[2])
	}
	var sum summaryJSON
	getJSON(t, ts, "/api/summary", &sum)
	if len(js.Hangs) != textHangs || sum.Hangs != textHangs {
		t.Errorf("hangs: JSON %d, text %d, viewer %d", len(js.Hangs), textHangs, sum.Hangs)
	}
	for _, h := range js.Hangs {
		if h.JDK {
			t.Errorf("JSON hangs has the JDK service thread %s (%s), which the text calls idle", *h.Name, h.Thread)
		}
	}
	// Every hung thread is in THREADS' top 10, JSON and text.
	inTop := map[string]bool{}
	for _, th := range js.Threads {
		inTop[th.ID] = true
	}
	threadsText := text[strings.Index(text, "\nTHREADS: "):]
	for _, h := range js.Hangs {
		if !inTop[h.Thread] || !strings.Contains(threadsText, "("+h.Thread+")") {
			t.Errorf("the hung %s (%s) is not in the THREADS top 10 (JSON %v)", *h.Name, h.Thread, inTop[h.Thread])
		}
	}

	// Every lock: its owners' blame and share in the report, the viewer
	// and pprof; its name in the report's sections, the viewer and the
	// exports.
	_, text, all := reportOf(t, r, 0)
	p := pprofOf(t, r)
	folded := exportText(t, r, "collapsed")
	byOwner := map[string]int64{} // lock+" "+owner ID: pprof's delay
	classOf := map[string]string{}
	for _, s := range p.Sample {
		lock := strings.Join(s.Label["lock"], "")
		if o := strings.Join(s.Label["owner"], ""); o != "" {
			id := o[strings.LastIndexByte(o, '(')+1 : len(o)-1]
			byOwner[lock+" "+id] += s.Value[1]
		}
		if c := s.Label["class"]; len(c) > 0 {
			classOf[lock] = c[0]
		}
	}
	ns := func(s float64) int64 { return int64(math.Round(s * 1e9)) }
	_, viewer := viewerLocks(t, ts, "")
	for _, l := range all.Locks {
		v, ok := viewer[l.Kind+" "+l.Object]
		if !ok {
			t.Errorf("%s %s: in the report, not in the viewer", l.Kind, l.Object)
			continue
		}
		var d lockDetailJSON
		getJSON(t, ts, "/api/locks/"+l.Kind+"/"+l.Object, &d)
		if len(d.Owners) != min(len(l.Owners), maxLockThreads) || d.OwnersTotal != len(l.Owners) {
			t.Errorf("%s %s: %d of %d owners in the viewer, %d in the report", l.Kind, l.Object, len(d.Owners), d.OwnersTotal, len(l.Owners))
			continue
		}
		var blamed int64
		for _, o := range l.Owners {
			blamed += ns(o.BlamedS)
		}
		if db := d.BlamedTotal - blamed; db > int64(len(l.Owners)) || db < -int64(len(l.Owners)) {
			t.Errorf("%s %s: %d ns blamed in all in the viewer, %d in the report's owners", l.Kind, l.Object, d.BlamedTotal, blamed)
		}
		for i, o := range l.Owners {
			vo := d.Owners[i]
			if vo.ID != o.Thread || vo.Blamed != ns(o.BlamedS) || vo.Pct != o.Pct || vo.Share != report.Percent(o.Pct) || vo.Contentions != o.Contentions || vo.Open != o.Open {
				t.Errorf("%s %s: owner %d is %s, %d ns, %v %%, %d contentions (+%d open) in the viewer; %s, %v s, %v %%, %d (+%d) in the report",
					l.Kind, l.Object, i, vo.ID, vo.Blamed, vo.Pct, vo.Contentions, vo.Open, o.Thread, o.BlamedS, o.Pct, o.Contentions, o.Open)
			}
			// pprof's owner time is the blame, exactly: for a
			// java.util.concurrent lock acquired in several parks too
			// (the gaps between them on the next park's owner).
			if l.Kind == "semaphore" {
				continue // not in pprof's default kind, monitor
			}
			got, want := byOwner[l.Object+" "+o.Thread], ns(o.BlamedS)
			if d := got - want; d > 1 || d < -1 {
				t.Errorf("%s %s: pprof -tagfocus=owner=%s gives %d ns, the report blames %d ns", l.Kind, l.Object, o.Thread, got, want)
			}
		}
		// One name: the viewer's class is the report's, the pprof label
		// and the folded leaf too.
		name := ""
		switch {
		case l.InitOf != nil:
			name = model.InitName(*l.InitOf)
		case l.Class != nil:
			name = format.JavaName(*l.Class)
		}
		if v.Class != name {
			t.Errorf("%s %s: the viewer names its class %q, the report %q", l.Kind, l.Object, v.Class, name)
		}
		if c, ok := classOf[l.Object]; ok && c != name {
			t.Errorf("%s %s: pprof's class label %q, the report's %q", l.Kind, l.Object, c, name)
		}
		if l.InitOf != nil {
			if !strings.Contains(folded, ";"+name+"_[i] ") {
				t.Errorf("%s %s: no folded stack ends with %q:\n%s", l.Kind, l.Object, name+"_[i]", folded)
			}
			for _, line := range strings.Split(text, "\n") {
				if strings.Contains(line, l.Object) && strings.Contains(line, "monitor class initialisation") {
					t.Errorf("the init lock %s named two ways: %q", l.Object, line)
				}
			}
		}
	}
	// In the text, a lock is named the same in CONTENTION and CALL SITES.
	contention, sites := section(text, "CONTENTION"), section(text, "CALL SITES")
	names := map[string]string{}
	entry := regexp.MustCompile(`(?m)^  #\d+ (.*? ([0-9A-F]{8})\)?): `)
	for _, e := range entry.FindAllStringSubmatch(contention, -1) {
		names[e[2]] = e[1]
	}
	for _, e := range entry.FindAllStringSubmatch(sites, -1) {
		if n, ok := names[e[2]]; ok && n != e[1] {
			t.Errorf("lock %s is %q in CONTENTION, %q in CALL SITES", e[2], n, e[1])
		}
	}
}

// section returns the text of the report's section that begins with
// title, up to the next blank line.
func section(text, title string) string {
	i := strings.Index(text, "\n"+title)
	if i < 0 {
		return ""
	}
	s := text[i+1:]
	if j := strings.Index(s, "\n\n"); j >= 0 {
		s = s[:j]
	}
	return s
}

func pprofOf(t *testing.T, r *recording) *profile.Profile {
	t.Helper()
	var b bytes.Buffer
	if err := export.PProf(&b, r.rec, r.res.Model, export.Options{}); err != nil {
		t.Fatal(err)
	}
	p, err := profile.Parse(&b)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func exportText(t *testing.T, r *recording, format string) string {
	t.Helper()
	f, _ := export.Lookup(format)
	var b bytes.Buffer
	if err := f.Write(&b, r.rec, r.res.Model, export.Options{}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// bankFacts checks what Bank.java did: the deadlock of teller-1 and
// teller-2 and the auditor behind it are hangs, each account's time
// blamed in full on the teller holding it, main among the THREADS top 10,
// Finalizer no hang; the deadlock's line gives its age.
func bankFacts(t *testing.T, r *recording) {
	_, text, js := reportOf(t, r, 10)
	names := map[string]bool{}
	for _, h := range js.Hangs {
		names[*h.Name] = true
	}
	for _, want := range []string{"teller-1", "teller-2", "auditor"} {
		if !names[want] {
			t.Errorf("%s not in hangs: %v", want, names)
		}
	}
	if names["Finalizer"] {
		t.Errorf("Finalizer in hangs")
	}
	if !regexp.MustCompile(`#1 formed at \d+\.\d{3} s and was still there at the end, \d+\.\d\d s later\n`).MatchString(text) {
		t.Errorf("the deadlock's line does not give its age as a duration:\n%s", section(text, "DEADLOCKS"))
	}
	_, _, all := reportOf(t, r, 0)
	for _, acct := range []string{"alice", "bob"} {
		obj := r.expect[acct]
		for _, l := range all.Locks {
			if l.Object != obj {
				continue
			}
			if len(l.Owners) != 1 || l.Owners[0].Pct != 100 || l.Owners[0].BlamedS != l.OpenS || l.Open != len(l.Waiters) {
				t.Errorf("account %s (%s): owners %+v, %d open for %v s", acct, obj, l.Owners, l.Open, l.OpenS)
			}
		}
	}
	if !strings.Contains(text, "2 threads STILL BLOCKED at the end, ") {
		t.Errorf("no lock still blocked at the end in the text")
	}
}
