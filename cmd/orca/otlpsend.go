package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/klauspost/compress/gzip"
	collpb "go.opentelemetry.io/proto/slim/otlp/collector/profiles/v1development"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"orca/internal/export"
)

// Sending OTLP profiles over HTTP/protobuf (orca push, orca record --otlp;
// docs/otlp.md): one POST of an ExportProfilesServiceRequest to the
// profiles signal's path under the OTLP/HTTP base endpoint, gzipped, with
// the user's headers; retried with back-off when the collector is away or
// asks to retry (429, 502, 503, 504), as the OTLP specification says.

// otlpProfilesPath is the profiles signal's path under an OTLP/HTTP base
// endpoint, as the collector's OTLP receiver serves it (profiles are
// v1development while in alpha).
const otlpProfilesPath = "/v1development/profiles"

// otlpEndpointEnv is OpenTelemetry's variable for the OTLP base endpoint,
// which --otlp defaults to; otlpHeadersEnv its headers, "k=v,k2=v2".
const (
	otlpEndpointEnv    = "OTEL_EXPORTER_OTLP_ENDPOINT"
	otlpHeadersEnv     = "OTEL_EXPORTER_OTLP_HEADERS"
	otlpCompressionEnv = "OTEL_EXPORTER_OTLP_COMPRESSION"
)

// otlpTarget is where and how profiles are sent.
type otlpTarget struct {
	url     string // the full URL, base endpoint and otlpProfilesPath
	headers http.Header
	// plain: the bodies are sent as they are marshalled, not gzipped
	// (--otlp-compression none): for a collector on the same host, where
	// the bytes cost nothing and gzip is an eighth of a push's CPU.
	plain  bool
	client *http.Client
	// retryFor bounds how long one request is retried before it is
	// given up (dropped).
	retryFor time.Duration
	// maxRequest is the largest request sent, as encoded (before gzip):
	// a larger one is split (export.SplitOTLP), --otlp-max-request.
	maxRequest int
	// sleep waits between tries; ctx's end stops it.
	sleep func(ctx context.Context, d time.Duration) error
}

// otlpURL checks an OTLP/HTTP base endpoint and returns the profiles URL:
// a wrong one is an error before anything is read or recorded.
func otlpURL(base string) (string, error) {
	u, err := url.Parse(base)
	switch {
	case err != nil || u.Scheme != "http" && u.Scheme != "https":
		return "", fmt.Errorf("%q: want an http:// or https:// URL, the OTLP/HTTP base endpoint (like http://127.0.0.1:4318)", base)
	case u.Host == "" || u.Hostname() == "":
		return "", fmt.Errorf("%q has no host: want the OTLP/HTTP base endpoint, like http://127.0.0.1:4318", base)
	case u.RawQuery != "" || u.Fragment != "":
		return "", fmt.Errorf("%q: a base endpoint has no query or fragment", base)
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n <= 0 || n > 65535 {
			return "", fmt.Errorf("%q: port %s is out of range", base, p)
		}
	}
	if strings.HasSuffix(strings.TrimRight(u.Path, "/"), otlpProfilesPath) {
		return "", fmt.Errorf("%q: give the base endpoint, without %s: orca appends it", base, otlpProfilesPath)
	}
	u.Path = strings.TrimRight(u.Path, "/") + otlpProfilesPath
	return u.String(), nil
}

// parseHeaders reads --otlp-header K=V values and OTEL_EXPORTER_OTLP_HEADERS
// (comma-separated K=V, values URL-encoded); the flags win.
func parseHeaders(env string, flags []string) (http.Header, error) {
	h := http.Header{}
	if env != "" {
		for _, kv := range strings.Split(env, ",") {
			k, v, ok := strings.Cut(strings.TrimSpace(kv), "=")
			if !ok || strings.TrimSpace(k) == "" {
				return nil, fmt.Errorf("%s: %q is not KEY=VALUE", otlpHeadersEnv, kv)
			}
			if uv, err := url.PathUnescape(strings.TrimSpace(v)); err == nil {
				v = uv
			}
			h.Set(strings.TrimSpace(k), v)
		}
	}
	given := map[string]bool{} // the keys the flags set, replacing the variable's
	for _, kv := range flags {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--otlp-header %q: want KEY=VALUE (like Authorization=Bearer TOKEN)", kv)
		}
		if k = http.CanonicalHeaderKey(k); !given[k] {
			h.Del(k)
			given[k] = true
		}
		h.Add(k, v)
	}
	return h, nil
}

// headerFlags collects repeated --otlp-header flags.
type headerFlags []string

func (h *headerFlags) String() string     { return strings.Join(*h, ",") }
func (h *headerFlags) Set(s string) error { *h = append(*h, s); return nil }

// newOTLPTarget returns the target of base (or $OTEL_EXPORTER_OTLP_ENDPOINT
// when base is ""), with headers. The client verifies TLS against the
// system's roots (Go's default), and goes through no proxy: a collector
// is the user's, reached directly.
func newOTLPTarget(base string, headerArgs []string, compression string) (*otlpTarget, error) {
	if base == "" {
		base = os.Getenv(otlpEndpointEnv)
		if base == "" {
			return nil, usageError{fmt.Sprintf("--otlp URL is required (the collector's OTLP/HTTP endpoint, like http://127.0.0.1:4318), or set %s", otlpEndpointEnv)}
		}
	}
	u, err := otlpURL(base)
	if err != nil {
		return nil, usageError{"--otlp " + err.Error()}
	}
	h, err := parseHeaders(os.Getenv(otlpHeadersEnv), headerArgs)
	if err != nil {
		return nil, usageError{err.Error()}
	}
	plain, err := parseCompression(compression)
	if err != nil {
		return nil, usageError{err.Error()}
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil
	return &otlpTarget{
		url: u, headers: h, plain: plain,
		client:     &http.Client{Transport: tr, Timeout: 30 * time.Second},
		retryFor:   time.Minute,
		maxRequest: defaultMaxRequest,
		sleep: func(ctx context.Context, d time.Duration) error {
			t := time.NewTimer(d)
			defer t.Stop()
			select {
			case <-t.C:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		},
	}, nil
}

// parseCompression reads --otlp-compression (or, when "",
// OTEL_EXPORTER_OTLP_COMPRESSION, whose values are OpenTelemetry's: gzip
// or none): plain is true for none. gzip by default: what every OTLP
// receiver takes, and what keeps the bytes sent below the recording's own
// (docs/otlp.md "Cost").
func parseCompression(flag string) (plain bool, err error) {
	v, from := flag, "--otlp-compression"
	if v == "" {
		v, from = os.Getenv(otlpCompressionEnv), otlpCompressionEnv
	}
	switch v {
	case "", "gzip":
		return false, nil
	case "none":
		return true, nil
	}
	return false, fmt.Errorf("%s %q: want gzip or none", from, v)
}

// body returns raw as t sends it (gzipped, or as it is), in dst's memory
// when it holds it.
func (t *otlpTarget) body(dst, raw []byte) []byte {
	if t.plain {
		return append(dst[:0], raw...)
	}
	return gzipAppend(dst, raw)
}

// defaultMaxRequest is --otlp-max-request's default: under the
// collector's otlp receiver's limit on a body as decompressed
// (max_request_body_size, 20 MiB by default), with room for a request
// that SplitOTLP's halving leaves a little under it.
const defaultMaxRequest = 16 << 20

// minMaxRequest is the smallest --otlp-max-request: a request's dictionary
// of a few stacks and a sample are some kB.
const minMaxRequest = 16 << 10

// parseMaxRequest reads --otlp-max-request's SIZE (as --max-size's, but
// from 16KB).
func parseMaxRequest(s string) (int, error) {
	if s == "" {
		return defaultMaxRequest, nil
	}
	n, err := parseSizeAtLeast(s, minMaxRequest)
	if err != nil {
		return 0, fmt.Errorf("--otlp-max-request %s: %v", s, err)
	}
	return int(min(n, 1<<30)), nil
}

// errRetry marks a failure worth trying again: the collector away, or
// asking for it (429, 502, 503, 504).
type errRetry struct {
	err   error
	after time.Duration // the collector's Retry-After, 0 when none
}

func (e errRetry) Error() string { return e.err.Error() }

// sendResult is what one request cost.
type sendResult struct {
	bytes int // the body, as sent (gzipped unless plain)
	tries int
}

// send posts req, retrying with exponential back-off (1 s, 2 s, 4 s, ...
// up to 30 s, or the collector's Retry-After) until it is accepted, a
// failure is not worth retrying, retryFor has passed, or ctx ends. A
// partial success with rejected profiles is an error.
func (t *otlpTarget) send(ctx context.Context, req *collpb.ExportProfilesServiceRequest) (sendResult, error) {
	raw, err := export.AppendOTLP(nil, req)
	if err != nil {
		return sendResult{}, fmt.Errorf("encoding the profiles: %w", err)
	}
	return t.sendRaw(ctx, raw)
}

// sendRaw is send of a request already encoded.
func (t *otlpTarget) sendRaw(ctx context.Context, raw []byte) (sendResult, error) {
	body := t.body(nil, raw)
	res := sendResult{bytes: len(body)}
	deadline := time.Now().Add(t.retryFor)
	wait := time.Second
	for {
		res.tries++
		err := t.post(ctx, body)
		var re errRetry
		if err == nil || !errors.As(err, &re) {
			return res, err
		}
		d := wait
		if re.after > 0 {
			d = re.after
		}
		if time.Now().Add(d).After(deadline) {
			return res, fmt.Errorf("%w (gave up after %d tries in %s)", err, res.tries, t.retryFor)
		}
		if err := t.sleep(ctx, d); err != nil {
			return res, fmt.Errorf("%v (stopped retrying after %d tries)", re.err, res.tries)
		}
		wait = min(2*wait, 30*time.Second)
	}
}

// gzipped returns raw gzipped: the body orca sends (Content-Encoding gzip,
// which the collector's OTLP receiver takes). With
// github.com/klauspost/compress's gzip at its level 2, which sends what
// compress/gzip's fastest level sends (0.559 against 0.560 bytes per byte
// of the bodies of a Tomcat recording) in under half its CPU (163-166
// against 346-369 ms for a minute of Tomcat's pushes); its level 1 is 11 %
// bigger for more CPU (docs/perf/2026-11-29-issue-35-push.md).
// compress/gzip's default level took as much of orca's CPU as reading and
// building a push's profiles for bodies 5-15 % smaller; Huffman coding
// alone costs less still but sends more than the recording's own bytes
// for some (the synthetic busy server's: 18 bytes an event against 13.9
// recorded): docs/otlp.md "Cost". The writers are reused, not made anew
// for every body.
func gzipped(raw []byte) []byte {
	return gzipAppend(nil, raw)
}

// gzipAppend is gzipped into dst's memory (from its start) when it holds
// the body, a buffer a pusher reuses from one push to the next: a body's
// memory made anew for each push, cleared, and grown once by doubling
// (the bodies are 0.56 bytes per byte: over an estimate of a half) was a
// tenth of the push's CPU (docs/perf/2026-11-30-issue-35-push.md).
func gzipAppend(dst, raw []byte) []byte {
	zw, _ := gzipWriters.Get().(*gzip.Writer)
	body := gzipWith(&zw, gzipLevel, dst, raw)
	gzipWriters.Put(zw)
	return body
}

// gzipWith is gzipAppend at level with the writer *zw (of that level),
// made when nil: a pusher keeps its own, which a sync.Pool would lose to
// the collections between two pushes 10 s apart (a writer of level 2 is
// ~0.3 MB made and cleared anew).
func gzipWith(zw **gzip.Writer, level int, dst, raw []byte) []byte {
	body := bytes.NewBuffer(dst[:0])
	switch level {
	case gzip.NoCompression:
		body.Grow(len(raw) + len(raw)/16384 + 64) // 5 bytes a block of at most 64 kB
	case gzip.HuffmanOnly:
		body.Grow(len(raw)*13/16 + 64) // 0.73-0.78 of the requests (Tomcat's, ActiveMQ's)
	default:
		body.Grow(len(raw)*5/8 + 64)
	}
	if *zw == nil {
		*zw, _ = gzip.NewWriterLevel(body, level)
	} else {
		(*zw).Reset(body)
	}
	(*zw).Write(raw)
	(*zw).Close()
	return body.Bytes()
}

const gzipLevel = 2

var gzipWriters sync.Pool

// post makes one try of a body (gzipped unless t.plain).
func (t *otlpTarget) post(ctx context.Context, body []byte) error {
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	for k, vs := range t.headers {
		hreq.Header[k] = vs
	}
	hreq.Header.Set("Content-Type", "application/x-protobuf")
	if !t.plain {
		hreq.Header.Set("Content-Encoding", "gzip")
	}
	hreq.Header.Set("User-Agent", "orca/"+version)
	resp, err := t.client.Do(hreq)
	if err != nil {
		// Worth another try: the collector not listening, gone, slow. A
		// certificate that does not verify is not (url.Error is itself a
		// net.Error: what it wraps decides).
		var ne net.Error
		var ue *url.Error
		var cv *tls.CertificateVerificationError
		if errors.As(err, &ue) && ctx.Err() == nil && !errors.As(err, &cv) &&
			(errors.As(ue.Err, &ne) || errors.Is(err, io.EOF) || isConnRefused(err)) {
			return errRetry{err: fmt.Errorf("sending to %s: %v", t.url, ue.Err)}
		}
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("sending to %s: %w", t.url, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	switch {
	case resp.StatusCode == http.StatusOK:
		var r collpb.ExportProfilesServiceResponse
		if err := proto.Unmarshal(data, &r); err == nil && r.PartialSuccess != nil && r.PartialSuccess.RejectedProfiles > 0 {
			return fmt.Errorf("%s rejected %d profiles: %s", t.url, r.PartialSuccess.RejectedProfiles, r.PartialSuccess.ErrorMessage)
		}
		return nil
	case resp.StatusCode == http.StatusTooManyRequests, resp.StatusCode == http.StatusBadGateway,
		resp.StatusCode == http.StatusServiceUnavailable, resp.StatusCode == http.StatusGatewayTimeout:
		var after time.Duration
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
			after = time.Duration(s) * time.Second
		}
		return errRetry{err: fmt.Errorf("%s: %s%s", t.url, resp.Status, bodyNote(data)), after: after}
	case resp.StatusCode == http.StatusNotFound:
		return statusError{resp.StatusCode, fmt.Sprintf("%s: %s: the server has no OTLP profiles endpoint there (a collector takes profiles with --feature-gates=service.profilesSupport and an otlp receiver with protocols: http)%s",
			t.url, resp.Status, bodyNote(data))}
	default:
		return statusError{resp.StatusCode, fmt.Sprintf("%s: %s%s", t.url, resp.Status, bodyNote(data))}
	}
}

// statusError is an answer that refuses a request for good.
type statusError struct {
	code int
	msg  string
}

func (e statusError) Error() string { return e.msg }

// bodyNote quotes the start of an error response's text, "" when it has
// none readable. OTLP/HTTP answers an error with a google.rpc.Status, in
// protobuf when the request was (the collector's "request body too large"
// is one): its message is quoted then.
func bodyNote(data []byte) string {
	if msg, ok := statusMessage(data); ok {
		data = []byte(msg)
	}
	s := strings.TrimSpace(string(data))
	if s == "" || strings.ContainsFunc(s, func(r rune) bool { return r < ' ' && r != '\n' && r != '\t' }) {
		return ""
	}
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return ": " + strings.ReplaceAll(s, "\n", " ")
}

// isConnRefused reports a collector that is not (or no longer) listening.
func isConnRefused(err error) bool {
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.ErrUnexpectedEOF)
}

// statusMessage decodes a protobuf google.rpc.Status (code = 1, message =
// 2, details = 3) and returns its message; ok is false for anything that
// is not one, e.g. a text answer.
func statusMessage(data []byte) (msg string, ok bool) {
	for len(data) > 0 {
		num, typ, n := protowire.ConsumeTag(data)
		if n < 0 || num < 1 || num > 3 {
			return "", false
		}
		data = data[n:]
		switch {
		case num == 1 && typ == protowire.VarintType:
			n = protowire.ConsumeFieldValue(num, typ, data)
		case num == 2 && typ == protowire.BytesType:
			var b []byte
			b, n = protowire.ConsumeBytes(data)
			if n >= 0 && !utf8.Valid(b) {
				return "", false
			}
			msg, ok = string(b), n >= 0
		case num == 3 && typ == protowire.BytesType:
			n = protowire.ConsumeFieldValue(num, typ, data)
		default:
			return "", false
		}
		if n < 0 {
			return "", false
		}
		data = data[n:]
	}
	return msg, ok
}
