package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/reader"
	"orca/internal/web"
)

const viewHelp = `Usage: orca view [--addr HOST:PORT] [--no-browser] [--follow] [--from T] [--to T] [--last D] PREFIX

Reads the recording PREFIX and serves it to a web browser: a timeline of
every thread's states (runnable, blocked, waiting, sleeping, joining,
acquiring) with the stack of each interval and who woke, started or blocked
whom; the locks ranked by contention; the wait-for graph at any instant with
its deadlocks; and a flame graph of blocked and waiting time by stack.

orca view prints the address, opens a browser when it can, and serves until
Ctrl-C. It listens on 127.0.0.1 (this machine only) on a free port unless
--addr says otherwise, and answers only requests with the token in the URL
it prints (?token=, kept by the browser as a cookie): every user of the
machine reaches 127.0.0.1. The page is built into orca: nothing is fetched from
the internet. The URL keeps the view, time range and selection, so a view
can be shared with someone who opens the same recording.

` + rangeHelp + `The viewer's times are then seconds since the range's start.

--follow reads the recording again whenever it grew (every 2 s it looks),
for a recording still being written: started with the JVM, attached with
orca record --pid, or always-on. The page reloads itself with the new data,
keeping its view (not while you are using it: it waits until you pause);
with --last, the range moves with the recording's end.

On a terminal, reading a large recording shows its progress on stderr.

Room on disk: the model's intervals go to a private temporary file (in
$TMPDIR, else /tmp; unlinked at once) of up to about 6 times the compact
events read (a text PREFIX.orca: a twentieth of that), and the first view of
a recording writes an index of about its size in ~/.cache/orca/view (or
$XDG_CACHE_HOME/orca/view), so that the next view serves at once (the
timeline, the locks and the first 100 locks' details, the deadlocks, the
flame graph; an interval's detail from the chunks of its time alone, when
they say what the whole recording does; the rest, as a thread's detail,
another lock's, a lock's highlight, a filter, reads the recording again
first, once): a 5 GB recording wants ~30 GB and ~5 GB free. orca view warns when
either has less room; ORCA_VIEW_SPILL=0 keeps the intervals in memory
instead, ORCA_VIEW_INDEX=0 writes no index.

Examples:
  orca view /tmp/run1
  orca view --addr 127.0.0.1:8080 --no-browser /tmp/run1
  orca view --last 5m /tmp/server
  orca view /tmp/run1 --from 120 --to 180
  orca view --follow --last 10m /tmp/server       (a recording being written)
`

// viewContext is when orca view stops: at Ctrl-C (tests replace it).
var viewContext = func() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

// viewProgressMin is the .orca size from which view shows its progress.
const viewProgressMin = 8 << 20

func runView(u ui, args []string) error {
	fs := newFlagSet("view", viewHelp)
	addr := fs.String("addr", web.DefaultAddr, "listen on `HOST:PORT` (port 0: a free one)")
	noBrowser := fs.Bool("no-browser", false, "print the URL only; do not open a browser")
	follow := fs.Bool("follow", false, "read the recording again as it grows; the page reloads with it")
	rf := addRangeFlags(fs, "view")
	ops, err := parseArgs(u, fs, args)
	if err != nil {
		return err
	}
	if len(ops) != 1 {
		return usagef("view: want one PREFIX (run 'orca view --help')")
	}
	if _, _, err := net.SplitHostPort(*addr); err != nil {
		return usagef("view: --addr %q: want HOST:PORT, like 127.0.0.1:8080", *addr)
	}
	if err := rf.check(); err != nil {
		return err
	}
	rec, err := openRecording("view", ops[0])
	if err != nil {
		return err
	}
	opt := viewModelOptions(rec)
	sig := recordingSig(rec.Prefix)
	if opt.Span, err = rf.span(rec); err != nil {
		return err
	}
	// Listen before the model is read: a port in use is said at once,
	// not after minutes of reading a large recording.
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("view: %w", err)
	}
	defer ln.Close()
	size := readBytes(rec, opt.Span)
	if opt.Spill {
		warnRoom(u.stderr, "view", "the viewer's temporary file", os.TempDir(), diskNeed(rec, size, viewSpillPerByte),
			"set TMPDIR to a directory with more room, or ORCA_VIEW_SPILL=0 to keep it in memory (more memory)")
	}
	if size > viewProgressMin {
		opt.Progress = newProgress(u.stderr, rec.Prefix+format.SuffixEvents, size)
	}
	boundMemory()
	// ORCA_REPORT_HEAPPROFILE and the others measure a viewer as they do a
	// report (reportprof.go): its peaks, as it builds and as it serves.
	prof := startReportProfile()
	defer prof.stop()
	loopback := web.IsLoopback(*addr)
	// A token in the URL: 127.0.0.1 is every local user's, and the
	// recording (0600) may be another user's that root views.
	wopt := web.Options{AllowAnyHost: !loopback, Follow: *follow, Token: viewToken()}
	// The index (docs/web.md): not of a recording that grows.
	var root, key string
	var idx *web.Index
	heapProfiles()
	if !*follow && os.Getenv("ORCA_VIEW_INDEX") != "0" {
		spanKey := ""
		if opt.Span != nil {
			spanKey = fmt.Sprintf("%d %d", opt.Span.From, opt.Span.To)
		}
		if root, err = web.IndexRoot(); err == nil {
			key = web.IndexKey(sig, spanKey)
			idx, err = web.OpenIndex(root, key)
		}
		if err != nil {
			fmt.Fprintf(u.stderr, "orca: warning: %s (the viewer reads the recording without it)\n", termSafe(err.Error()))
			root = ""
		}
		if idx == nil && root != "" {
			warnRoom(u.stderr, "view", "the viewer's index", root, diskNeed(rec, size, viewIndexPerByte),
				"set XDG_CACHE_HOME to a directory with more room, or ORCA_VIEW_INDEX=0 to write none (the next orca view reads the recording again)")
		}
	}
	var srv *web.Server
	if idx != nil {
		// The index answers what the page shows now; the model is read
		// only when a detail asks it (docs/web.md, "The index"), and
		// that detail waits for it.
		srv = web.NewFromIndex(idx, wopt)
		progress := opt.Progress
		opt.Progress = func(events int, bytes int64) {
			if progress != nil {
				progress(events, bytes)
			}
			if bytes >= 0 && size > 0 {
				srv.SetProgress(float64(bytes) / float64(size))
			}
		}
		// An interval's detail, until then, from the model of the range
		// its state spans (docs/web.md): a hover or a click reads that
		// range's chunks, not the whole recording.
		srv.DetailsFromRanges(web.NewRangeBuilder(func() (*reader.Recording, error) { return openRecording("view", ops[0]) }, opt.Span, viewModelOptions))
		srv.BuildOnDemand(func() {
			t0 := time.Now()
			res, err := model.Build(rec, opt)
			if progress != nil {
				progress(-1, 0)
			}
			if err != nil {
				err = fullAdvice("view", viewSpillPerByte, "ORCA_VIEW_SPILL", err)
				fmt.Fprintf(u.stderr, "orca: %s (the viewer shows what the index holds)\n", termSafe(err.Error()))
				srv.Failed(err)
				return
			}
			if progress != nil {
				fmt.Fprintf(u.stderr, "orca: read %d events in %.1f s\n", res.Model.Events, time.Since(t0).Seconds())
			}
			srv.Ready(rec, res)
		})
	} else {
		t0 := time.Now()
		res, err := model.Build(rec, opt)
		if opt.Progress != nil {
			opt.Progress(-1, 0)
		}
		if err != nil {
			return fullAdvice("view", viewSpillPerByte, "ORCA_VIEW_SPILL", err)
		}
		if opt.Progress != nil {
			fmt.Fprintf(u.stderr, "orca: read %d events in %.1f s\n", res.Model.Events, time.Since(t0).Seconds())
		}
		heapProfile("built")
		srv = web.New(rec, res, wopt)
		if root != "" {
			go func() {
				t0 := time.Now()
				st, err := srv.WriteIndex(root, key)
				heapProfile("index")
				if err != nil {
					fmt.Fprintf(u.stderr, "orca: warning: %s (the next orca view reads the recording whole again)\n", termSafe(err.Error()))
				} else if opt.Progress != nil {
					fmt.Fprintf(u.stderr, "orca: wrote the viewer's index (%.1f MB, zoom levels %d to %d) in %.1f s\n",
						float64(st.Bytes)/(1<<20), st.Levels[0], st.Levels[len(st.Levels)-1], time.Since(t0).Seconds())
				}
			}()
		}
	}
	if !loopback {
		fmt.Fprintf(u.stderr, "orca: warning: listening on %s: anyone who can reach this machine can read the recording\n", ln.Addr())
	}
	url := "http://" + ln.Addr().String() + "/?token=" + wopt.Token
	if opt.Span != nil {
		fmt.Fprintf(u.stdout, "orca: %s\n", rangeNote(opt.Span))
	}
	fmt.Fprintf(u.stdout, "orca: serving %s at %s (Ctrl-C to stop)\n", termSafe(rec.Prefix), url)
	if !*noBrowser {
		if err := openBrowser(url); err != nil {
			fmt.Fprintf(u.stderr, "orca: %v; open %s yourself\n", err, url)
		}
	}
	ctx, stop := viewContext()
	defer stop()
	if *follow {
		go followRecording(ctx, u, rec.Prefix, rf, srv, sig)
	}
	return web.Serve(ctx, ln, srv)
}

// viewModelOptions are the model's options for orca view
// (web.ModelOptions: the intervals in a private temporary file, read back
// as the page asks); ORCA_VIEW_SPILL=0 keeps them in memory (the same
// answers).
func viewModelOptions(rec *reader.Recording) model.Options {
	if os.Getenv("ORCA_VIEW_SPILL") == "0" {
		return model.Options{}
	}
	return web.ModelOptions(rec)
}

// followEvery is how often orca view --follow looks whether the recording
// grew (a variable for tests).
var followEvery = 2 * time.Second

// followRecording builds the model again whenever the recording's event
// files changed (recordingSig) and has srv answer from it, until ctx ends.
// A build that fails is told, and the last model stays. After a build
// that took d, it looks again d later at the soonest: a recording whose
// reading takes longer than followEvery is read at most half the time.
func followRecording(ctx context.Context, u ui, prefix string, rf *rangeFlags, srv *web.Server, sig string) {
	t := time.NewTicker(followEvery)
	defer t.Stop()
	var next time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if time.Now().Before(next) {
			continue
		}
		now := recordingSig(prefix)
		if now == sig {
			continue
		}
		sig = now
		t0 := time.Now()
		rec, err := reader.Open(prefix)
		var res *model.Result
		if err == nil {
			opt := viewModelOptions(rec)
			if opt.Span, err = rf.span(rec); err == nil {
				res, err = model.Build(rec, opt)
			}
		}
		if err != nil {
			fmt.Fprintf(u.stderr, "orca: warning: view --follow: %s (the page shows the recording as it was)\n", termSafe(err.Error()))
			continue
		}
		if ctx.Err() == nil {
			srv.Update(rec, res)
		}
		next = time.Now().Add(time.Since(t0))
	}
}

// recordingSig says what the event files of the recording PREFIX are now
// (each one's name, size and modification time): it changes when the
// recording grows, a chunk is added or one is deleted by its bounds.
func recordingSig(prefix string) string {
	names, _ := filepath.Glob(prefix + format.SuffixEvents + ".*")
	names = append(names, prefix+format.SuffixEvents)
	var b strings.Builder
	for _, n := range names {
		if n != prefix+format.SuffixEvents && !reader.IsChunkPath(n) {
			continue
		}
		if fi, err := os.Stat(n); err == nil {
			fmt.Fprintf(&b, "%s %d %d\n", n, fi.Size(), fi.ModTime().UnixNano())
		}
	}
	return b.String()
}

// viewToken is 128 random bits in hex: what orca view asks of each request.
func viewToken() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(fmt.Sprintf("crypto/rand: %v", err))
	}
	return hex.EncodeToString(b[:])
}

// openBrowser starts the user's browser on url without waiting for it.
func openBrowser(url string) error {
	var cmd []string
	switch {
	case os.Getenv("BROWSER") != "":
		cmd = []string{os.Getenv("BROWSER"), url}
	case runtime.GOOS == "darwin":
		cmd = []string{"open", url}
	case runtime.GOOS == "windows":
		cmd = []string{"rundll32", "url.dll,FileProtocolHandler", url}
	default:
		if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
			return fmt.Errorf("no display to open a browser on")
		}
		cmd = []string{"xdg-open", url}
	}
	path, err := exec.LookPath(cmd[0])
	if err != nil {
		return fmt.Errorf("cannot open a browser: %s not found", cmd[0])
	}
	c := exec.Command(path, cmd[1:]...)
	if err := c.Start(); err != nil {
		return fmt.Errorf("opening a browser: %w", err)
	}
	go c.Wait() // reap it; xdg-open returns at once
	return nil
}

// heapProfiles writes a heap profile to $ORCA_VIEW_HEAPPROFILE.N every
// 15 s (N: the seconds since the start), when set (hidden: where the
// viewer's memory goes, docs/web.md).
func heapProfiles() {
	if os.Getenv("ORCA_VIEW_HEAPPROFILE") == "" {
		return
	}
	t0 := time.Now()
	go func() {
		for range time.Tick(15 * time.Second) {
			heapProfile(fmt.Sprint(int(time.Since(t0).Seconds())))
		}
	}()
}

// heapProfile writes a heap profile to $ORCA_VIEW_HEAPPROFILE.at, created
// exclusively, never through a symlink; nothing when unset.
func heapProfile(at string) {
	p := os.Getenv("ORCA_VIEW_HEAPPROFILE")
	if p == "" {
		return
	}
	f, err := os.OpenFile(p+"."+at, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	pprof.WriteHeapProfile(f) // as of the last collection: none forced
}
