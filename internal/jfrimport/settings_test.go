package jfrimport

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"orca/internal/format"

	jt "orca/internal/jfr/jfrtest"
)

// TestImportSettings checks that .info says what JFR's settings let it see:
// per kind, the threshold, a type disabled, stacks off; a setting that
// changed counts as the one that saw least.
func TestImportSettings(t *testing.T) {
	c := &jt.Chunk{Classes: jt.JDKClasses(), StartTicks: 0}
	c.Thread(1, "main", 1, 100)
	c.DefaultSettings()
	c.Setting(jt.TMonitorWait, "threshold", "0 ms") // a second recording, or a change: the largest counts
	c.Setting(jt.TThreadPark, "enabled", "false")
	c.Setting(jt.TThreadSleep, "stackTrace", "false")
	c.Setting(jt.TThreadEnd, "enabled", "false")
	c.Setting(jt.TThreadEnd, "enabled", "false")
	c.Setting(jt.TStackTrace, "enabled", "true") // not an event type the import reads
	c.Event(jt.TThreadSleep, jt.Varint(5000), jt.Varint(30_000_000), jt.Varint(1), jt.Varint(0), jt.Varint(30))
	fs, bufs := bufferFiles("set", format.EncodingSeed)
	if _, err := convert(bytes.NewReader(c.Bytes()), -1, fs, Options{Source: "set.jfr"}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range strings.Split(bufs[".info"].String(), "\n") {
		for _, p := range []string{"ended_only", "park_ends", "source_settings", "jfr_settings.", "threshold_ns.", "not_recorded.", "no_stacks."} {
			if strings.HasPrefix(l, p) {
				got = append(got, l)
			}
		}
	}
	want := []string{
		"ended_only=true",
		"park_ends=unknown",
		"source_settings=known",
		"jfr_settings.jdk.JavaMonitorEnter=enabled=true threshold=20ms stackTrace=true",
		"threshold_ns.MonitorContendedEnter=20000000",
		"jfr_settings.jdk.JavaMonitorWait=enabled=true threshold=20ms stackTrace=true",
		"threshold_ns.ObjectWait=20000000",
		"jfr_settings.jdk.ThreadPark=enabled=partly threshold=20ms stackTrace=true",
		"not_recorded.ThreadPark=jdk.ThreadPark disabled in part of the recording",
		"threshold_ns.ThreadPark=20000000",
		"jfr_settings.jdk.ThreadSleep=enabled=true threshold=20ms stackTrace=partly",
		"threshold_ns.ThreadSleep=20000000",
		"no_stacks.ThreadSleep=jdk.ThreadSleep stackTrace=partly",
		"jfr_settings.jdk.ThreadStart=enabled=true stackTrace=true",
		"jfr_settings.jdk.ThreadEnd=enabled=partly",
		"not_recorded.ThreadEnded=jdk.ThreadEnd disabled in part of the recording",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf(".info:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// Without jdk.ActiveSetting: unknown, and a warning.
	fs, bufs = bufferFiles("syn", format.EncodingSeed)
	if _, err := convert(bytes.NewReader(synthetic()), -1, fs, Options{Source: "syn.jfr"}); err != nil {
		t.Fatal(err)
	}
	info := bufs[".info"].String()
	if !strings.Contains(info, "\nsource_settings=unknown\n") || !strings.Contains(info, "\nwarning=the JFR file has no jdk.ActiveSetting") ||
		strings.Contains(info, "threshold_ns.") {
		t.Errorf(".info without settings:\n%s", info)
	}
}

func TestParseSpan(t *testing.T) {
	for _, c := range []struct {
		in string
		ns int64
		ok bool
	}{
		{"20 ms", 20e6, true}, {"0 ns", 0, true}, {"1s", 1e9, true}, {"10 us", 10e3, true}, {"2 m", 120e9, true},
		{"infinity", math.MaxInt64, true}, {"99999999999 d", math.MaxInt64, true},
		{"", 0, false}, {"ms", 0, false}, {"20 parsecs", 0, false}, {"-1 ms", 0, false},
	} {
		if ns, ok := parseSpan(c.in); ns != c.ns || ok != c.ok {
			t.Errorf("parseSpan(%q) = %d, %v; want %d, %v", c.in, ns, ok, c.ns, c.ok)
		}
	}
}
