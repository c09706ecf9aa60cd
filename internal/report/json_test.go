package report

import (
	"bufio"
	"bytes"
	"orca/internal/linediff"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// TestJSONStreamed: WriteJSON, which writes the long lists element by
// element, writes the bytes of the whole Report encoded at once
// (encodeWhole: a json.Encoder with the report's indentation), on every
// golden case, with each case's option sets and with every list whole
// (--top=0) and the wait chains on, so that every streamed list is met
// empty, nil and full.
func TestJSONStreamed(t *testing.T) {
	eachCase(t, func(name string, ar *txtar.Archive, argSets []string) {
		rec, res := load(t, name, ar)
		for _, args := range append([]string{"", "--top=0", "--top=0 --chains", "--top=1 --virtual"}, argSets...) {
			t.Run(name+"/"+args, func(t *testing.T) {
				r := New(rec, res, parseArgs(t, args))
				var streamed, whole bytes.Buffer
				if err := r.WriteJSON(&streamed); err != nil {
					t.Fatal(err)
				}
				if err := r.encodeWhole(&whole); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(streamed.Bytes(), whole.Bytes()) {
					t.Errorf("the streamed JSON differs from the whole Report encoded at once:\n%s", linediff.Lines(whole.String(), streamed.String()))
				}
			})
		}
	})
}

// TestJSONOnly: with Options.JSONOnly the listed locks' waiters and owners
// are written from the Model as WriteJSON goes, and with Options.Streamed
// the threads and the wait chains, and the JSON is the bytes of the Report
// with them as rows, on every golden case with each case's option sets,
// every list whole (--top=0) and the wait chains on; the Report's rows are
// not made. Fails with a row of any of those lists made otherwise, or a
// list's brackets where an empty one is "[]".
func TestJSONOnly(t *testing.T) {
	eachCase(t, func(name string, ar *txtar.Archive, argSets []string) {
		rec, res := load(t, name, ar)
		for _, args := range append([]string{"", "--top=0", "--top=0 --chains", "--top=1 --virtual"}, argSets...) {
			t.Run(name+"/"+args, func(t *testing.T) {
				opt := parseArgs(t, args)
				var rows, streamed bytes.Buffer
				if err := New(rec, res, opt).WriteJSON(&rows); err != nil {
					t.Fatal(err)
				}
				opt.JSONOnly, opt.Streamed = true, true
				r := New(rec, res, opt)
				for _, l := range r.Locks {
					if l.Owners != nil || l.Waiters != nil {
						t.Errorf("lock %s: %d owners' and %d waiters' rows made", l.Object, len(l.Owners), len(l.Waiters))
					}
				}
				if r.Threads != nil || r.Chains != nil || len(r.textThreads) > 0 {
					t.Errorf("%d threads' rows, %d wait chains', %d text threads' made", len(r.Threads), len(r.Chains), len(r.textThreads))
				}
				if err := r.WriteJSON(&streamed); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(streamed.Bytes(), rows.Bytes()) {
					t.Errorf("the JSON written from the Model differs from the rows':\n%s", linediff.Lines(rows.String(), streamed.String()))
				}
			})
		}
	})
}

// TestListsStreamed: as orca report --json --top 0 makes and writes a
// Report (Options.JSONOnly, Streamed), the rows of the threads and of the
// wait chains are made one at a time as they are written, not held:
// each list's row i is made once its element i-1 is written (before
// that, once the list's key is), on every golden case. Fails with the rows
// made in New (0.92 GB of c1G's report were its wait chains made at
// once).
func TestListsStreamed(t *testing.T) {
	lists := []string{"threads", "chains"}
	many := map[string]int{}
	eachCase(t, func(name string, ar *txtar.Archive, argSets []string) {
		rec, res := load(t, name, ar)
		t.Run(name, func(t *testing.T) {
			opt := parseArgs(t, "--top=0 --chains")
			opt.JSONOnly, opt.Streamed = true, true
			var out bytes.Buffer
			made := map[string][]int{} // by list, where the output was as each row was made
			madeRow = func(list string) { made[list] = append(made[list], out.Len()) }
			defer func() { madeRow = nil }()
			// A buffer of the least size: out has all but the last 16
			// bytes written.
			const slack = 16
			bw := bufio.NewWriterSize(&out, slack)
			if err := New(rec, res, opt).WriteJSON(bw); err != nil {
				t.Fatal(err)
			}
			if err := bw.Flush(); err != nil {
				t.Fatal(err)
			}
			doc := out.String()
			for _, list := range lists {
				// The list's elements begin at depth 2, its key at 1.
				head := "\n  \"" + list + "\": ["
				key := strings.Index(doc, head)
				if key < 0 {
					t.Fatalf("no %q list in the JSON", list)
				}
				var at []int
				if !strings.HasPrefix(doc[key+len(head):], "]") {
					end := key + strings.Index(doc[key:], "\n  ]")
					for i := key; ; {
						j := strings.Index(doc[i:end], "\n    {")
						if j < 0 {
							break
						}
						at = append(at, i+j)
						i += j + 1
					}
				}
				if len(made[list]) != len(at) {
					t.Fatalf("%s: %d rows made, %d in the JSON", list, len(made[list]), len(at))
				}
				for i, m := range made[list] {
					after := key
					if i > 0 {
						after = at[i-1]
					}
					if m+slack < after {
						t.Errorf("%s: row %d made with %d bytes written, before the list's key (at %d) and element i-1 (at %d) were", list, i, m, key, after)
						break
					}
				}
				if len(at) > 1 {
					many[list]++
				}
			}
		})
	})
	for _, list := range lists {
		if many[list] == 0 {
			t.Errorf("no golden case lists two %s or more: the test checks nothing", list)
		}
	}
}

// TestTextStreamed: as orca report --top 0 makes and writes a Report
// (Options.Streamed, every row listed), the text's THREADS rows are not
// held but made as WriteText writes them, and the text is the bytes of the
// Report made with its rows, on every golden case, virtual threads grouped
// and listed one by one. Fails with the rows made in New (a 5 GB
// recording's 1.3 M threads), or with a table whose columns or widths
// differ from the rows'.
func TestTextStreamed(t *testing.T) {
	eachCase(t, func(name string, ar *txtar.Archive, argSets []string) {
		rec, res := load(t, name, ar)
		for _, args := range []string{"--top=0", "--top=0 --virtual", "--top=0 --chains"} {
			t.Run(name+"/"+args, func(t *testing.T) {
				opt := parseArgs(t, args)
				var rows, streamed bytes.Buffer
				if err := New(rec, res, opt).WriteText(&rows); err != nil {
					t.Fatal(err)
				}
				// The wait chains' deep ones as the Report with its rows
				// has them, to tell where each row must be made.
				var deep []bool
				for _, c := range New(rec, res, opt).Chains {
					deep = append(deep, c.Depth >= 2)
				}
				opt.Streamed = true
				made := 0
				var chainAt []int // the WAIT CHAINS' roots written when each chain was made
				madeRow = func(list string) {
					switch list {
					case "text threads":
						made++
					case "chains":
						n := 0
						if at := strings.Index(streamed.String(), "WAIT CHAINS:"); at >= 0 {
							n = strings.Count(streamed.String()[at:], "\n  #")
						}
						chainAt = append(chainAt, n)
					}
				}
				defer func() { madeRow = nil }()
				r := New(rec, res, opt)
				if r.ThreadsTotal > 0 && (r.textThreads != nil || r.textLazy == nil || made > 0) {
					t.Fatalf("%d text threads' rows held, %d made in New (want none; made as written)", len(r.textThreads), made)
				}
				if err := r.WriteText(&streamed); err != nil {
					t.Fatal(err)
				}
				if opt.Chains && len(chainAt) != len(deep) {
					t.Errorf("%d wait chains made, %d in the Report", len(chainAt), len(deep))
				}
				before := 0 // the deep chains before i
				for i := range min(len(chainAt), len(deep)) {
					if chainAt[i] < before {
						t.Errorf("wait chain %d made with %d roots written, before the %d deep ones ahead of it were", i, chainAt[i], before)
						break
					}
					if deep[i] {
						before++
					}
				}
				if r.ThreadsTotal > 0 && made != 2*r.textLazy.len() {
					t.Errorf("%d rows made writing %d (want each twice: the widths, then the lines)", made, r.textLazy.len())
				}
				if !bytes.Equal(streamed.Bytes(), rows.Bytes()) {
					t.Errorf("the text written from the Model differs from the rows':\n%s", linediff.Lines(rows.String(), streamed.String()))
				}
			})
		}
	})
}
