// Package web serves a recording to a browser: a timeline of every thread's
// states, the lock contention ranking, the wait-for graph with its
// deadlocks, and a flame graph of blocked and waiting time. The model is
// built once by the caller; the handlers only read it. Everything the page
// needs (HTML, JavaScript, CSS) is embedded in the binary, so the viewer
// works offline and fetches nothing else. docs/web.md describes the JSON
// API.
package web

import (
	"bufio"
	"crypto/subtle"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"orca/internal/model"
	"orca/internal/reader"
)

//go:embed static
var staticFiles embed.FS

// Options are what the server needs beyond the recording.
type Options struct {
	// AllowAnyHost turns off the Host header check. The check refuses
	// requests whose Host is not a loopback name, so a web page elsewhere
	// cannot read the recording through DNS rebinding; a server bound to a
	// non-loopback address on purpose needs it off.
	AllowAnyHost bool
	// Follow: the recording is read again as it grows (orca view
	// --follow, Server.Update); the page asks /api/version now and then
	// and reloads when it changed.
	Follow bool
	// Token, when set, is asked of every request: in the query (?token=T,
	// the URL orca view prints), which sets a cookie the page's own requests
	// then carry. 127.0.0.1 is every local user's: without it any of them
	// could read a recording of another user's that root views.
	Token string
}

// Server answers the viewer's requests for one recording, the model of
// it built last (Update): each request is answered from one model.
type Server struct {
	opt Options
	mux *http.ServeMux
	cur atomic.Pointer[site]
	// idx is the recording's index, when it has one (NewFromIndex); its
	// tiles are served while the model is read and after.
	idx *Index
	// read is how much of the recording the model being built has read,
	// in thousandths (SetProgress), while the index alone answers.
	read atomic.Int64
	// build reads the model (BuildOnDemand), started once by the first
	// request the index cannot answer; failed is its error (Failed).
	build     func()
	buildOnce sync.Once
	building  atomic.Bool // the build started (needModel)
	failed    atomic.Pointer[string]
	// ranges builds the model of a range for an interval's detail while
	// the model is not ready (DetailsFromRanges); rd keeps those details.
	ranges RangeBuilder
	rd     rangeDetails
}

// site is what a Server answers from: one built model, indexed; or,
// while it is built, the recording's index alone (d nil).
type site struct {
	d   *data
	idx *Index
	srv *Server
	opt Options
	gen int // 1 for the first model, +1 at each Update
}

// New indexes the built model for the viewer.
func New(rec *reader.Recording, res *model.Result, opt Options) *Server {
	s := &Server{opt: opt, mux: http.NewServeMux()}
	s.install(rec, res, 1)
	s.routes()
	return s
}

// NewFromIndex answers from the recording's index (OpenIndex) until Ready
// gives it the model: what the page shows unasked (the first screen's
// answers, the overview, the default flame graph and wait-for graphs, the
// tiles); every other request is answered 503, "still reading the
// recording: N %" (SetProgress), which the page retries, and starts the
// model's build (BuildOnDemand).
func NewFromIndex(idx *Index, opt Options) *Server {
	s := &Server{opt: opt, mux: http.NewServeMux(), idx: idx}
	s.cur.Store(&site{idx: idx, srv: s, opt: opt, gen: 1})
	s.routes()
	return s
}

// BuildOnDemand has a Server made by NewFromIndex call build, in a
// goroutine of its own and once, at the first request that needs the
// model (a detail the user asked: a thread's, an interval's, a lock's, a
// filter, the edges): build reads it and calls Ready, or Failed. Until
// then the Server holds the index alone (a reopen of c1G: 0.13 GB, where
// the model is 4 GB).
func (s *Server) BuildOnDemand(build func()) { s.build = build }

// Failed says the model could not be built: what needs it is answered
// with err from then on, not "still reading".
func (s *Server) Failed(err error) {
	msg := err.Error()
	s.failed.Store(&msg)
}

// needModel starts the model's build when it has not started.
func (s *Server) needModel() {
	if s.build != nil {
		s.buildOnce.Do(func() {
			s.building.Store(true)
			go s.build()
		})
	}
}

// SetProgress says how much of the recording the model being built has
// read (0 to 1), for the answers of a Server that waits for it.
func (s *Server) SetProgress(f float64) { s.read.Store(int64(f * 1000)) }

// Ready gives a Server made by NewFromIndex its model: it answers
// everything from it, the index's tiles still (the same bytes).
func (s *Server) Ready(rec *reader.Recording, res *model.Result) { s.install(rec, res, 1) }

// Update makes the server answer from a new model of the recording (orca
// view --follow, after it grew); requests in flight finish with the old.
func (s *Server) Update(rec *reader.Recording, res *model.Result) {
	s.idx = nil // of the recording as it was
	s.install(rec, res, s.cur.Load().gen+1)
}

func (s *Server) install(rec *reader.Recording, res *model.Result, gen int) {
	st := &site{d: newData(rec, res), idx: s.idx, srv: s, opt: s.opt, gen: gen}
	if s.idx == nil {
		// The page asks for the summary first; its report (report.New,
		// most of a second on 400 000 intervals) is built while the
		// browser starts. With an index, the summary is its answer.
		go st.d.report("")
	}
	s.cur.Store(st)
}

// fromIndex answers a request from the index alone, while the model is
// built: the answers it keeps, or 503 (reading).
func (s *site) fromIndex(w http.ResponseWriter, r *http.Request) {
	if b := s.idx.answer(r); b != nil {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		// A read that fails cuts the body (the status is sent already).
		io.Copy(w, b)
		return
	}
	writeError(w, s.reading())
}

// reading is the answer to what needs the model while it is built, or
// before: it starts the build (BuildOnDemand).
func (s *site) reading() error {
	if msg := s.srv.failed.Load(); msg != nil {
		return &apiError{http.StatusInternalServerError, "reading the recording: " + *msg}
	}
	s.srv.needModel()
	return &apiError{http.StatusServiceUnavailable, fmt.Sprintf("still reading the recording: %d %%", s.srv.read.Load()/10)}
}

// duration is the recording's length in ns, threadCount its threads.
func (s *site) duration() int64 {
	if s.d == nil {
		return s.idx.dir.Duration
	}
	return s.d.rel(s.d.m.End)
}

func (s *site) threadCount() int {
	if s.d == nil {
		return s.idx.dir.Threads
	}
	return s.d.m.NumThreads()
}

// versionJSON answers GET /api/version: which model the server answers
// from, for a page that follows a growing recording.
type versionJSON struct {
	Generation int   `json:"generation"`
	Follow     bool  `json:"follow"`
	Events     int   `json:"events"`
	Duration   int64 `json:"duration"` // ns
}

func (s *site) version(r *http.Request) (any, error) {
	return versionJSON{Generation: s.gen, Follow: s.opt.Follow, Events: s.d.m.Events, Duration: s.d.rel(s.d.m.End)}, nil
}

// apiError is an answer other than 200: its status and a message for the
// user, sent as {"error": message}.
type apiError struct {
	status int
	msg    string
}

func (e *apiError) Error() string { return e.msg }

func badRequest(format string, args ...any) error {
	return &apiError{http.StatusBadRequest, fmt.Sprintf(format, args...)}
}

func notFound(format string, args ...any) error {
	return &apiError{http.StatusNotFound, fmt.Sprintf(format, args...)}
}

// routes registers fixed paths only: no handler turns a request path into
// a file name, and static files come from the embedded tree alone.
func (s *Server) routes() {
	sub, err := fs.Sub(staticFiles, "static")
	if err != nil {
		panic(err) // the tree is compiled in
	}
	files := http.FileServerFS(sub)
	s.mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		serveIndex(w, r, sub)
	})
	s.mux.Handle("GET /static/", http.StripPrefix("/static/", noDirs(files)))

	api := map[string]func(s *site, r *http.Request) (any, error){
		"GET /api/summary":                (*site).summary,
		"GET /api/version":                (*site).version,
		"GET /api/threads/{thread}":       (*site).thread,
		"GET /api/intervals/{thread}/{i}": (*site).interval,
		"GET /api/stacks/{id}":            (*site).stack,
		"GET /api/edges":                  (*site).edges,
		"GET /api/overview":               (*site).overview,
		"GET /api/locks":                  (*site).locks,
		"GET /api/locks/{kind}/{object}":  (*site).lock,
		"GET /api/groups":                 (*site).groups,
		"GET /api/deadlocks":              (*site).deadlocks,
		"GET /api/waitfor":                (*site).waitFor,
		"GET /api/chain/{thread}/{i}":     (*site).chain,
		"GET /api/flame":                  (*site).flame,
		"GET /api/flame/samples":          (*site).samplesFlame,
	}
	for pattern, h := range api {
		jh := jsonHandler(func(r *http.Request) (any, error) { return h(s.cur.Load(), r) })
		ranged := pattern == "GET /api/intervals/{thread}/{i}"
		chain := pattern == "GET /api/chain/{thread}/{i}"
		s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			if st := s.cur.Load(); chain && st.d == nil && r.URL.Query().Get("lazy") == "1" && s.build != nil && !s.building.Load() && s.failed.Load() == nil {
				// A wait chain follows every thread's state at an
				// instant: the model's. Asked lazily (the side panel
				// of an interval whose detail came from its range), it
				// does not start the model's build: the page offers it.
				writeError(w, &apiError{http.StatusConflict, "following the wait chain needs the whole recording read (the index keeps the timeline, not who waited for whom)"})
				return
			}
			if st := s.cur.Load(); ranged && st.d == nil && s.ranges != nil && st.idx != nil && s.failed.Load() == nil {
				// An interval's detail from its range while the model
				// is not read (rangedetail.go); else as below.
				if v, err := st.intervalFromRange(r); err != nil || v != nil {
					jsonHandler(func(*http.Request) (any, error) { return v, err })(w, r)
					return
				}
			}
			if st := s.cur.Load(); st.d == nil || st.idx != nil && st.idx.answer(r) != nil {
				// The index's answers, once the model is ready too: the
				// same bytes (TestIndexAnswers), with no report made for
				// them (report.New: c1G 2.5 GB live at its peak).
				st.fromIndex(w, r)
				return
			}
			jh(w, r)
		})
	}
	threads := jsonHandler(func(r *http.Request) (any, error) { return s.cur.Load().threads(r) })
	s.mux.HandleFunc("GET /api/threads", func(w http.ResponseWriter, r *http.Request) {
		st := s.cur.Load()
		switch {
		case r.URL.Query().Has("threads"):
			st.threadsRows(w, r)
		case st.d == nil || st.idx != nil && st.idx.answer(r) != nil:
			st.fromIndex(w, r)
		default:
			threads(w, r)
		}
	})
	s.mux.HandleFunc("GET /api/lanes", func(w http.ResponseWriter, r *http.Request) { s.cur.Load().lanes(w, r) })
	// The same with only in a form body: a lock's threads as ranges were
	// 2.2 MB at c5G-slow5, past a URL's bounds (431 from the server;
	// Chromium's are 2 MB).
	s.mux.HandleFunc("POST /api/lanes", func(w http.ResponseWriter, r *http.Request) { s.cur.Load().lanes(w, r) })
	s.mux.HandleFunc("GET /api/tiles", func(w http.ResponseWriter, r *http.Request) { s.cur.Load().tiles(w, r) })
	s.mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			writeError(w, &apiError{http.StatusMethodNotAllowed, fmt.Sprintf("%s %s: the API is read-only, use GET", r.Method, r.URL.Path)})
			return
		}
		writeError(w, notFound("no API %s %s (docs/web.md lists them)", r.Method, r.URL.Path))
	})
}

// ServeHTTP checks the Host header, sets the security headers and routes.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !s.opt.AllowAnyHost && !loopbackHost(r.Host) {
		writeError(w, &apiError{http.StatusForbidden, fmt.Sprintf("host %q is not a loopback address: orca view answers only requests to 127.0.0.1, [::1] or localhost", r.Host)})
		return
	}
	if s.opt.Token != "" && !s.tokenGiven(w, r) {
		writeError(w, &apiError{http.StatusForbidden, "no token or a wrong one: open the URL orca view printed, with its ?token="})
		return
	}
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'")
	s.mux.ServeHTTP(w, r)
}

// tokenGiven reports whether r carries the server's token: as the cookie a
// first request set, or in its query, when it sets that cookie. The cookie's
// name holds the token's start: cookies are per host, not per port, and two
// orca views on 127.0.0.1 must not overwrite each other's. The token is taken
// out of r's query: the index keeps answers by their query.
func (s *Server) tokenGiven(w http.ResponseWriter, r *http.Request) bool {
	q := r.URL.Query()
	given := q.Get("token")
	if q.Has("token") {
		q.Del("token")
		r.URL.RawQuery = q.Encode()
	}
	if c, err := r.Cookie(s.tokenCookie()); err == nil && subtle.ConstantTimeCompare([]byte(c.Value), []byte(s.opt.Token)) == 1 {
		return true
	}
	if subtle.ConstantTimeCompare([]byte(given), []byte(s.opt.Token)) != 1 {
		return false
	}
	http.SetCookie(w, &http.Cookie{Name: s.tokenCookie(), Value: s.opt.Token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
	return true
}

// tokenCookie is the name of the cookie that carries the token.
func (s *Server) tokenCookie() string {
	return "orca-" + s.opt.Token[:min(8, len(s.opt.Token))]
}

// loopbackHost reports whether a Host header names this machine.
func loopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func serveIndex(w http.ResponseWriter, r *http.Request, sub fs.FS) {
	b, err := fs.ReadFile(sub, "index.html")
	if err != nil {
		http.Error(w, "index.html missing from the build", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.Write(b)
}

// noDirs answers 404 for directories rather than listing them.
func noDirs(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "" || strings.HasSuffix(r.URL.Path, "/") {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Cache-Control", "no-cache")
		h.ServeHTTP(w, r)
	})
}

func jsonHandler(h func(r *http.Request) (any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		v, err := h(r)
		if err != nil {
			writeError(w, err)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		if l, ok := v.(jsonList); ok {
			l.writeJSON(w)
			return
		}
		enc := json.NewEncoder(w)
		if err := enc.Encode(v); err != nil {
			// The status is sent already; the client sees a cut body.
			return
		}
	}
}

// jsonList is an answer that is a long list: written an element at a
// time, as json.Encoder writes the whole list (the same bytes), never held
// whole (/api/threads of c1G: 80 MB, and the buffer's growth as much
// again).
type jsonList struct {
	n    int
	elem func(i int) any
}

// writeJSON writes the list to w; a failed write cuts the body (the status
// is sent already).
func (l jsonList) writeJSON(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteByte('[')
	for i := 0; i < l.n; i++ {
		if i > 0 {
			bw.WriteByte(',')
		}
		b, err := json.Marshal(l.elem(i))
		if err != nil {
			return err
		}
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	bw.WriteString("]\n")
	return bw.Flush()
}

func writeError(w http.ResponseWriter, err error) {
	var ae *apiError
	if !errors.As(err, &ae) {
		ae = &apiError{http.StatusInternalServerError, err.Error()}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(ae.status)
	json.NewEncoder(w).Encode(map[string]string{"error": ae.msg})
}
