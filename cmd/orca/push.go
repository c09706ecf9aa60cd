package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"orca/internal/export"
	"orca/internal/format"
)

const pushHelp = `Usage: orca push [--otlp URL] [--otlp-header K=V]... [--otlp-compression gzip|none] [--otlp-max-request SIZE] [--service NAME] [--kind KINDS] [--no-samples] [--from T] [--to T] [--last D] PREFIX

Sends the recording PREFIX (or a range of it) to an OpenTelemetry Collector,
or any receiver of OTLP profiles (Grafana Pyroscope), as OTLP profiles over
HTTP/protobuf: an ExportProfilesServiceRequest POSTed, gzipped (or as it is:
--otlp-compression none, or OTEL_EXPORTER_OTLP_COMPRESSION=none), to URL +
/v1development/profiles. URL is the OTLP/HTTP base endpoint, as
OTEL_EXPORTER_OTLP_ENDPOINT is, which it defaults to (the collector's otlp
receiver listens on port 4318; it takes profiles when started with
--feature-gates=service.profilesSupport). https:// URLs are verified against
the system's roots.

For each kind of blocking with states in the recording, two profiles, with
the sample types of Go's and Pyroscope's mutex and block profiles:
contentions (count) and delay (nanoseconds). The kinds (attribute
orca.profile.kind of each profile) are monitor (contended synchronized),
juc (contended java.util.concurrent locks), wait, sleep, join, semaphore,
park and idle; with the threads' samples (orca record takes them), cpu
(samples, cpu nanoseconds) and wall (samples, wall nanoseconds) too. Each
value has its stack and its time. Attributes:
  resource   service.name (the main class or jar, or --service),
             host.name, process.pid, process.runtime.name and .version,
             process.command_line, orca.recording
  samples    thread.name, thread.id, lock.class, lock.kind, lock.id,
             orca.state.open; on contentions (monitor, juc)
             lock.owner.thread.name and .id: the thread blamed for that
             delay. A contention whose owner changed while it waited is
             split into one sample per owner, so the delay per owner is
             orca report's blame. wait: wait.notifier.thread.name; join:
             join.target.thread.name; park, idle: park.unparker.thread.name;
             semaphore: semaphore.releaser.thread.name; cpu, wall:
             orca.sampled.
orca export --format pprof writes the same attributes as labels.
docs/otlp.md in the source tree lists them and the proto version.

To push a recording as it goes, every few seconds, from a bounded recording's
chunks: orca record --otlp URL --max-age D (orca help record).

A collector that is away or busy (connection refused, 429, 502, 503, 504)
is tried again with back-off (1 s, 2 s, 4 s ... or its Retry-After) for up
to a minute (--retry-for). A request larger than --otlp-max-request (16MB;
the collector takes 20 MiB) is sent as several, each a run of its samples.
Exit status 0 when the collector accepted everything, 1 with
the reason otherwise (2: a usage error, a wrong URL).

` + rangeHelp + `
Examples:
  orca push --otlp http://127.0.0.1:4318 /tmp/run1
  OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318 orca push /tmp/run1
  orca push --otlp https://otlp.example.com --otlp-header "Authorization=Bearer $TOKEN" /tmp/run1
  orca push --otlp http://127.0.0.1:4318 --last 5m --service checkout /var/tmp/srv
  orca push --otlp http://127.0.0.1:4318 --kind monitor --no-samples /tmp/run1

A collector that takes them (otelcol with the otlp receiver; its
--feature-gates=service.profilesSupport):
  receivers: {otlp: {protocols: {http: {endpoint: 127.0.0.1:4318}}}}
  exporters: {file: {path: /tmp/profiles.json}}
  service: {pipelines: {profiles: {receivers: [otlp], exporters: [file]}}}
`

// pushFlags are the flags orca push and orca record --otlp share.
type pushFlags struct {
	url      *string
	headers  headerFlags
	compress *string
	service  *string
}

func runPush(u ui, args []string) error {
	fs := newFlagSet("push", pushHelp)
	var pf pushFlags
	pf.url = fs.String("otlp", "", "the OTLP/HTTP base endpoint `URL` (default $"+otlpEndpointEnv+"), like http://127.0.0.1:4318")
	fs.Var(&pf.headers, "otlp-header", "send the HTTP header `K=V` (repeat for more; beside $"+otlpHeadersEnv+", whose value of K it replaces)")
	pf.compress = fs.String("otlp-compression", "", "send the body gzipped or as it is: `gzip|none` (default $"+otlpCompressionEnv+", else gzip; none for a collector on the same host: less CPU, more bytes)")
	pf.service = fs.String("service", "", "the resource's service.name `NAME` (default the JVM's main class or jar)")
	kindList := fs.String("kind", "all", "the states pushed: `KINDS` from "+strings.Join(export.KindNames(), ", ")+" (monitor covers monitor and juc)")
	noSamples := fs.Bool("no-samples", false, "push no cpu and wall profiles of the threads' samples")
	retryFor := fs.Duration("retry-for", time.Minute, "try again for at most `D` while the collector is away or busy (0: one try)")
	maxReq := fs.String("otlp-max-request", "", "send requests of at most `SIZE` (encoded, before gzip), a larger one split into several by its samples (default 16MB: the collector takes 20 MiB; e.g. 4MB for Pyroscope's limit per profile)")
	rf := addRangeFlags(fs, "push")
	ops, err := parseArgs(u, fs, args)
	if err != nil {
		return err
	}
	if len(ops) != 1 {
		return usagef("push: want one PREFIX (run 'orca push --help')")
	}
	kinds, err := export.ParseKinds(*kindList)
	if err != nil {
		return usagef("push: --kind: %v", err)
	}
	target, err := newOTLPTarget(*pf.url, pf.headers, *pf.compress)
	if err != nil {
		return usagef("push: %v", err)
	}
	target.retryFor = *retryFor
	if target.maxRequest, err = parseMaxRequest(*maxReq); err != nil {
		return usagef("push: %v", err)
	}
	rec, res, err := buildRange(u, "push", ops[0], rf, export.PushOptions())
	if err != nil {
		return err
	}
	host, _ := os.Hostname()
	req, err := export.OTLP(rec, res.Model, export.OTLPOptions{Kinds: kinds, Samples: !*noSamples,
		Service: *pf.service, Host: host, Version: version})
	if err != nil {
		return err
	}
	totals := export.OTLPTotals(req)
	if len(totals) == 0 {
		fmt.Fprintf(u.stderr, "orca: warning: %s has no %s states and no samples: nothing to push\n", rec.Prefix, kinds)
		return nil
	}
	// A request above --otlp-max-request is sent as several, each a run
	// of its samples with its own dictionary: together the same samples.
	_, raws, err := export.SplitOTLP(req, target.maxRequest)
	if err != nil {
		return fmt.Errorf("push: encoding the profiles: %v", err)
	}
	var sent sendResult
	for i, raw := range raws {
		r, err := target.sendRaw(context.Background(), raw)
		sent.bytes, sent.tries = sent.bytes+r.bytes, sent.tries+r.tries
		if err != nil {
			if len(raws) > 1 {
				return fmt.Errorf("push: request %d of %d (%d sent): %v%s", i+1, len(raws), i, err, tooLargeNote(err))
			}
			return fmt.Errorf("push: %v%s", err, tooLargeNote(err))
		}
	}
	reqNote := ""
	if len(raws) > 1 {
		reqNote = fmt.Sprintf(" in %d requests of at most %s", len(raws), sizeName(int64(target.maxRequest)))
	}
	fmt.Fprintf(u.stdout, "pushed %s to %s: %d profiles, %d bytes%s%s\n", rec.Prefix, target.url, len(totals), sent.bytes, reqNote, triesNote(sent.tries-len(raws)+1))
	for _, t := range totals {
		fmt.Fprintf(u.stdout, "  %s\n", pushLine(t))
	}
	return nil
}

// triesNote says how many tries a request took, when more than one.
func triesNote(n int) string {
	if n <= 1 {
		return ""
	}
	return fmt.Sprintf(" (%d tries)", n)
}

// pushLine prints one profile's total: "monitor delay: 1.234 s in 12
// samples".
func pushLine(t export.OTLPTotal) string {
	v := strconv.FormatInt(t.Sum, 10)
	if t.Unit == "nanoseconds" {
		v = strconv.FormatFloat(format.Time(t.Sum).Seconds(), 'f', 3, 64) + " s"
	}
	return fmt.Sprintf("%-9s %-11s %s in %d %s", t.Kind, t.Type, v, t.Samples, plural(t.Samples, "sample", "samples"))
}

// tooLargeNote says what to do when the receiver refused a request for
// its size (the collector: "request body too large", 400; 413 elsewhere).
func tooLargeNote(err error) string {
	var se statusError
	if errors.As(err, &se) && (se.code == http.StatusRequestEntityTooLarge || strings.Contains(se.msg, "too large")) {
		return " (the receiver takes smaller requests: lower --otlp-max-request, e.g. 4MB)"
	}
	return ""
}
