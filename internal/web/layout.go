package web

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"

	"golang.org/x/text/collate"
	"golang.org/x/text/language"
)

// The lanes' layout (docs/web.md, "The lanes' layout"): the timeline's
// order of its lanes, made by the server, so that the page needs no
// thread's row before its first paint but those of the lanes on screen
// (c5G-slow5: 1.33 M threads, /api/threads 397 MB of JSON, 4.9-6 s in
// Chromium before the first paint). GET /api/lanes?sort&group&filter&only
// answers the order of every lane and group the page lays out, and GET
// /api/threads?threads=RANGES the rows of the threads asked.

// threadTable is what a layout reads of each thread: its name and id (the
// filter, the name's order and group), its start, its time blocked,
// parked and waiting (the orders by start and by blocked), whether it is
// a JDK service thread or a virtual one (its group).
type threadTable struct {
	name, id              []string
	start                 []int64
	blocked, parked, wait []int64 // time[1], time[5], time[2] (summary.states' order)
	flags                 []uint8 // tableJDK | tableVirtual
	run                   bool    // a thread whose runnable time is split (the legend's parts)
}

const (
	tableJDK     = 1
	tableVirtual = 2
)

// The states' places in threadJSON.Time the orders read (format.js
// STATES: runnable, blocked, waiting, sleeping, parked, idle, ...).
const (
	stateBlocked = 1
	stateWaiting = 2
	stateParked  = 5
)

func (tb *threadTable) len() int { return len(tb.name) }

// threadTable makes the table of the model's threads.
func (s *site) threadTable() *threadTable {
	d := s.d
	d.tableOnce.Do(func() {
		n := d.m.NumThreads()
		tb := &threadTable{name: make([]string, n), id: make([]string, n), start: make([]int64, n),
			blocked: make([]int64, n), parked: make([]int64, n), wait: make([]int64, n), flags: make([]uint8, n)}
		for i, t := range d.m.AllThreads() {
			tb.name[i], tb.id[i], tb.start[i] = t.Name, t.ID.String(), d.rel(t.Start)
			tb.blocked[i], tb.parked[i], tb.wait[i] = int64(t.Time[stateBlocked]), int64(t.Time[stateParked]), int64(t.Time[stateWaiting])
			if d.jdkThread[i] {
				tb.flags[i] |= tableJDK
			}
			if t.Virtual {
				tb.flags[i] |= tableVirtual
			}
			if hasSplit(t) {
				tb.run = true
			}
		}
		d.table = tb
	})
	return d.table
}

// encode writes the table as an index keeps it: u32 threads, u8 run, then
// the columns (start, blocked, parked, waiting: i64; flags: u8), then each
// name and id as u32 length and bytes.
func (tb *threadTable) encode() []byte {
	le := binary.LittleEndian
	var b bytes.Buffer
	var w [8]byte
	le.PutUint32(w[:4], uint32(tb.len()))
	b.Write(w[:4])
	run := byte(0)
	if tb.run {
		run = 1
	}
	b.WriteByte(run)
	for _, col := range [][]int64{tb.start, tb.blocked, tb.parked, tb.wait} {
		for _, v := range col {
			le.PutUint64(w[:], uint64(v))
			b.Write(w[:])
		}
	}
	b.Write(tb.flags)
	for _, col := range [][]string{tb.name, tb.id} {
		for _, v := range col {
			le.PutUint32(w[:4], uint32(len(v)))
			b.Write(w[:4])
			b.WriteString(v)
		}
	}
	return b.Bytes()
}

func decodeTable(b []byte) (*threadTable, error) {
	le := binary.LittleEndian
	bad := errors.New("the index's thread table is damaged")
	if len(b) < 5 {
		return nil, bad
	}
	n := int(le.Uint32(b))
	tb := &threadTable{run: b[4] == 1}
	p := 5
	if len(b) < p+n*33 {
		return nil, bad
	}
	for _, col := range []*[]int64{&tb.start, &tb.blocked, &tb.parked, &tb.wait} {
		*col = make([]int64, n)
		for i := range *col {
			(*col)[i] = int64(le.Uint64(b[p:]))
			p += 8
		}
	}
	tb.flags = append([]uint8(nil), b[p:p+n]...)
	p += n
	for _, col := range []*[]string{&tb.name, &tb.id} {
		*col = make([]string, n)
		for i := range *col {
			if len(b) < p+4 {
				return nil, bad
			}
			l := int(le.Uint32(b[p:]))
			p += 4
			if len(b) < p+l {
				return nil, bad
			}
			(*col)[i] = string(b[p : p+l])
			p += l
		}
	}
	return tb, nil
}

// The lanes' answer, little-endian:
//
//	u32 magic 0x4C43524F ("ORCL"), u32 version 1, u32 head, u32 rows
//	head bytes of JSON: {"lanes": lanes, "run": bool,
//	  "groups": {"key": [...], "count": [...], "blocked": [...]}}
//	padding to a multiple of 4 bytes
//	i32 order[rows]   a lane's thread index; -(g+1) the head of group g,
//	                  whose count lanes follow
const lanesMagic = 0x4C43524F

type lanesHead struct {
	Lanes  int        `json:"lanes"`
	Run    bool       `json:"run"`
	Groups groupsJSON `json:"groups"`
}

type groupsJSON struct {
	Key     []string `json:"key"`
	Count   []int    `json:"count"`
	Blocked []int64  `json:"blocked"` // ns, the members' time[1] summed
}

// maxLanesBody bounds a POST /api/lanes' body: only, ranges of up to
// millions of threads.
const maxLanesBody = 64 << 20

// layoutParams are a layout's parameters as the page sends them.
type layoutParams struct {
	sort   string
	group  bool
	filter string // lower case
	only   []int  // nil: every thread
}

func (s *site) layoutParams(w http.ResponseWriter, r *http.Request) (layoutParams, error) {
	q := r.URL.Query()
	if r.Method == http.MethodPost {
		// only in the body (application/x-www-form-urlencoded), the rest
		// in the query: a form's values come first in r.Form.
		r.Body = http.MaxBytesReader(w, r.Body, maxLanesBody)
		if err := r.ParseForm(); err != nil {
			return layoutParams{}, badRequest("the lanes' form: %v", err)
		}
		q = r.Form
	}
	p := layoutParams{sort: q.Get("sort"), filter: strings.ToLower(q.Get("filter"))}
	switch q.Get("group") {
	case "", "0":
	case "1":
		p.group = true
	default:
		return p, badRequest("group=%q: 0 or 1", q.Get("group"))
	}
	if v := q.Get("only"); v != "" || q.Has("only") {
		only, err := s.threadList(v, 1<<30)
		if err != nil {
			return p, err
		}
		p.only = only
		if p.only == nil {
			p.only = []int{}
		}
	}
	return p, nil
}

// The page's prefix of a group's key: JDK service threads, virtual
// threads, a thread alone (timeline.js).
const (
	keyJDK     = "\x00jdk"
	keyVirtual = "\x02v:"
	keyAlone   = "\x01"
)

// groupKey is timeline.js groupKey: a name less its trailing digits and a
// '#', or "" when the name has none or is only digits.
func groupKey(name string) string {
	j := len(name)
	for j > 0 && name[j-1] >= '0' && name[j-1] <= '9' {
		j--
	}
	if j == len(name) || j == 0 {
		return ""
	}
	return name[:j] + "#"
}

// virtualKey is a virtual thread's group: its name with each run of ASCII
// digits as N.
func virtualKey(name string) string {
	var b strings.Builder
	b.WriteString(keyVirtual)
	for i := 0; i < len(name); {
		if name[i] >= '0' && name[i] <= '9' {
			for i < len(name) && name[i] >= '0' && name[i] <= '9' {
				i++
			}
			b.WriteByte('N')
			continue
		}
		b.WriteByte(name[i])
		i++
	}
	return b.String()
}

// nameKeys are the names' collation keys, of the threads of list (by
// thread index): the page's natural order (format.js natural:
// Intl.Collator, numeric, sensitivity base), the root locale's collation
// with digits as numbers, case and accents ignored.
func nameKeys(names []string, list []int) []string {
	c := collate.New(language.Und, collate.Numeric, collate.Loose)
	var buf collate.Buffer
	keys := make([]string, len(names))
	for _, i := range list {
		keys[i] = string(c.KeyFromString(&buf, names[i]))
		buf.Reset()
	}
	return keys
}

// layout orders and groups the threads as timeline.js relayout did with
// every row at hand: the filter (a name containing it, in lower case, or
// the id equal to it), the threads of a lock, then the order (by start,
// name or time blocked, ties by index), then the groups in the order of
// their first thread, JDK service threads last, sorted by their first
// thread's start or name or by their time blocked, a group of one alone.
func layout(tb *threadTable, p layoutParams) []byte {
	var list []int
	keep := func(i int) bool {
		if p.filter == "" {
			return true
		}
		return strings.Contains(strings.ToLower(tb.name[i]), p.filter) || strings.ToLower(tb.id[i]) == p.filter
	}
	if p.only != nil {
		seen := make(map[int]bool, len(p.only))
		for _, i := range p.only {
			if !seen[i] && keep(i) {
				seen[i] = true
				list = append(list, i)
			}
		}
		sort.Ints(list)
	} else {
		list = make([]int, 0, tb.len())
		for i := range tb.len() {
			if keep(i) {
				list = append(list, i)
			}
		}
	}
	var keys []string
	switch p.sort {
	case "start":
		sort.Slice(list, func(a, b int) bool {
			x, y := list[a], list[b]
			if tb.start[x] != tb.start[y] {
				return tb.start[x] < tb.start[y]
			}
			return x < y
		})
	case "name":
		keys = nameKeys(tb.name, list)
		sort.Slice(list, func(a, b int) bool {
			x, y := list[a], list[b]
			if kx, ky := keys[x], keys[y]; kx != ky {
				return kx < ky
			}
			return x < y
		})
	case "blocked":
		sort.Slice(list, func(a, b int) bool {
			x, y := list[a], list[b]
			for _, col := range [][]int64{tb.blocked, tb.parked, tb.wait} {
				if col[x] != col[y] {
					return col[x] > col[y]
				}
			}
			return x < y
		})
	}
	head := lanesHead{Lanes: len(list), Run: tb.run, Groups: groupsJSON{Key: []string{}, Count: []int{}, Blocked: []int64{}}}
	order := make([]int32, 0, len(list))
	if !p.group {
		for _, i := range list {
			order = append(order, int32(i))
		}
	} else {
		type group struct {
			key     string
			members []int
			blocked int64
		}
		byKey := map[string]*group{}
		var groups []*group
		for _, i := range list {
			var key string
			switch {
			case tb.flags[i]&tableJDK != 0:
				key = keyJDK
			case tb.flags[i]&tableVirtual != 0:
				key = virtualKey(tb.name[i])
			default:
				if key = groupKey(tb.name[i]); key == "" {
					key = fmt.Sprintf("%s%d", keyAlone, i)
				}
			}
			g := byKey[key]
			if g == nil {
				g = &group{key: key}
				byKey[key] = g
				groups = append(groups, g)
			}
			g.members = append(g.members, i)
			g.blocked += tb.blocked[i]
		}
		jdk := func(g *group) int {
			if g.key == keyJDK {
				return 1
			}
			return 0
		}
		sort.SliceStable(groups, func(a, b int) bool {
			x, y := groups[a], groups[b]
			if jx, jy := jdk(x), jdk(y); jx != jy {
				return jx < jy
			}
			switch p.sort {
			case "start":
				return tb.start[x.members[0]] < tb.start[y.members[0]]
			case "name":
				return keys[x.members[0]] < keys[y.members[0]]
			case "blocked":
				return x.blocked > y.blocked
			}
			return false
		})
		for _, g := range groups {
			if len(g.members) == 1 && g.key != keyJDK {
				order = append(order, int32(g.members[0]))
				continue
			}
			order = append(order, -int32(len(head.Groups.Key))-1)
			head.Groups.Key = append(head.Groups.Key, g.key)
			head.Groups.Count = append(head.Groups.Count, len(g.members))
			head.Groups.Blocked = append(head.Groups.Blocked, g.blocked)
			for _, i := range g.members {
				order = append(order, int32(i))
			}
		}
	}
	js, _ := json.Marshal(head)
	le := binary.LittleEndian
	pad := (4 - len(js)%4) % 4
	b := make([]byte, 16+len(js)+pad+4*len(order))
	le.PutUint32(b, lanesMagic)
	le.PutUint32(b[4:], 1)
	le.PutUint32(b[8:], uint32(len(js)+pad))
	le.PutUint32(b[12:], uint32(len(order)))
	copy(b[16:], js)
	for k := range pad {
		b[16+len(js)+k] = ' '
	}
	p0 := 16 + len(js) + pad
	for k, v := range order {
		le.PutUint32(b[p0+4*k:], uint32(v))
	}
	return b
}

// indexLayouts are the layouts an index keeps: every order, grouped or
// not, of every thread (the page's first is sort=start&group=1).
func indexLayouts() []string {
	var u []string
	for _, so := range []string{"start", "name", "blocked"} {
		for _, g := range []string{"0", "1"} {
			u = append(u, "/api/lanes?"+url.Values{"sort": {so}, "group": {g}}.Encode())
		}
	}
	return u
}

// lanes answers GET /api/lanes: the index's answer when it keeps it, else
// the layout of the model's table, or of the index's.
func (s *site) lanes(w http.ResponseWriter, r *http.Request) {
	if s.idx != nil && r.Method != http.MethodPost { // a POST's only is in its body
		if b := s.idx.answer(r); b != nil {
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Header().Set("Cache-Control", "no-store")
			io.Copy(w, b)
			return
		}
	}
	p, err := s.layoutParams(w, r)
	if err != nil {
		writeError(w, err)
		return
	}
	var tb *threadTable
	if s.d != nil {
		tb = s.threadTable()
	} else if tb, err = s.idx.table(); err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(layout(tb, p))
}

// threadsRows answers GET /api/threads?threads=RANGES: the rows of those
// threads, in the order asked, as /api/threads has them.
func (s *site) threadsRows(w http.ResponseWriter, r *http.Request) {
	list, err := s.threadList(r.URL.Query().Get("threads"), maxRows)
	if err != nil {
		writeError(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	if s.idx != nil {
		b, err := s.idx.rows(list)
		if err != nil {
			writeError(w, err)
			return
		}
		w.Write(b)
		return
	}
	jsonList{len(list), func(k int) any { return s.threadJSON(list[k]) }}.writeJSON(w)
}

// maxRows: the most rows one request asks (the page asks the lanes on
// screen and a view's threads, in parts of this many).
const maxRows = 4096

// indexTable and indexRows are the keys of an index's thread table and
// the places of /api/threads' rows (no path: never an answer).
const (
	indexTable = "\x00table"
	indexRows  = "\x00rows"
)

// indexExtra is what an Index reads once for the layouts and rows: its
// thread table and its rows' places.
type indexExtra struct {
	tableOnce sync.Once
	tb        *threadTable
	tableErr  error
	rowsOnce  sync.Once
	rowsAt    []byte // u64 offset of each row in /api/threads' body, and its end
	rowsErr   error
}

func (x *Index) table() (*threadTable, error) {
	x.extra.tableOnce.Do(func() {
		b := x.body(indexTable)
		if b == nil {
			x.extra.tableErr = errors.New("the index keeps no thread table")
			return
		}
		x.extra.tb, x.extra.tableErr = decodeTable(b)
	})
	return x.extra.tb, x.extra.tableErr
}

// rows reads the rows of threads from /api/threads' body: "[" the rows
// "]\n", as jsonList writes them.
func (x *Index) rows(threads []int) ([]byte, error) {
	x.extra.rowsOnce.Do(func() {
		x.extra.rowsAt = x.body(indexRows)
		if x.extra.rowsAt == nil || len(x.extra.rowsAt) != 8*(x.dir.Threads+1) {
			x.extra.rowsErr = errors.New("the index keeps no threads' rows")
		}
	})
	if x.extra.rowsErr != nil {
		return nil, x.extra.rowsErr
	}
	body, ok := x.bodies["/api/threads"]
	if !ok {
		return nil, errors.New("the index keeps no /api/threads")
	}
	le := binary.LittleEndian
	at := func(i int) int64 { return int64(le.Uint64(x.extra.rowsAt[8*i:])) }
	var b bytes.Buffer
	b.WriteByte('[')
	for k := 0; k < len(threads); {
		// A run of consecutive threads is one read.
		j := k
		for j+1 < len(threads) && threads[j+1] == threads[j]+1 {
			j++
		}
		lo, hi := at(threads[k]), at(threads[j]+1)-1 // less the ',' or ']'
		buf := make([]byte, hi-lo)
		if _, err := x.f.ReadAt(buf, body[0]+lo); err != nil {
			return nil, err
		}
		if k > 0 {
			b.WriteByte(',')
		}
		b.Write(buf)
		k = j + 1
	}
	b.WriteString("]\n")
	return b.Bytes(), nil
}
