package format

// LiveState keeps, from a recording's events in order, what a chunk
// restates at its start (docs/format.md, "Chunks and the state at their
// start"): for each thread that started and has not ended, its
// ThreadStarted, its last VirtualThreadMounted and each interval it is in
// (outermost first), with the ObjectWaitTimeout or VirtualThreadPinned
// that follows its begin; and the last ObjectClass, ClassInitLock and
// ConditionLock of each object. It is the agent's rule (agent/record/compact.c, track and
// compact_begin) in Go, for the Go writer's chunks and for a reader that
// starts a time range inside a chunk (reader.Span).
//
// E is the event type kept (format.Event for the writer, reader.Event for
// the reader); the caller gives how to read its kind, thread and object.
// Events are kept by value: the slices and strings they point to must stay
// valid (a reader's stacks from a StackTable; the writer copies).
type LiveState[E any] struct {
	key     func(*E) (Kind, ThreadID, ObjectID)
	threads map[ThreadID]*liveThread[E]
	order   []*liveThread[E] // by first sight; ended ones are skipped, and dropped now and then
	dead    int
	facts   map[ObjectID]*liveFact[E]
}

type liveThread[E any] struct {
	id    ThreadID
	ended bool
	name  *E // ThreadStarted
	mount *E // VirtualThreadMounted
	open  []liveInterval[E]
}

type liveInterval[E any] struct {
	begin E
	extra *E // ObjectWaitTimeout, VirtualThreadPinned
	// fact: its object's class lines when it began, restated with it
	// even once the facts kept were forgotten (maxLiveFacts), as the
	// agent does (compact_thread.pin).
	fact *liveFact[E]
}

type liveFact[E any] struct {
	class, clinit, cond *E
}

// maxLiveOpen bounds the nested intervals kept a thread (the agent keeps
// 4; a semaphore's acquire and its park is 2): past it the outermost is
// forgotten, as a malformed recording of begins without ends would
// otherwise grow without bound.
const maxLiveOpen = 8

// maxLiveFacts bounds the objects whose classes are kept (the agent keeps
// 16 384): past it all are forgotten, and an object is then named by its
// class only where a later record gives it.
const maxLiveFacts = 1 << 17

// NewLiveState returns an empty LiveState of events whose kind, thread and
// object key returns.
func NewLiveState[E any](key func(*E) (Kind, ThreadID, ObjectID)) *LiveState[E] {
	return &LiveState[E]{key: key, threads: map[ThreadID]*liveThread[E]{}, facts: map[ObjectID]*liveFact[E]{}}
}

func (s *LiveState[E]) thread(id ThreadID, create bool) *liveThread[E] {
	t := s.threads[id]
	if t == nil && create {
		t = &liveThread[E]{id: id}
		s.threads[id] = t
		s.order = append(s.order, t)
	}
	return t
}

// Track keeps what e says of its thread or object.
func (s *LiveState[E]) Track(e *E) {
	kind, th, obj := s.key(e)
	switch kind {
	case ThreadStarted:
		t := s.thread(th, true)
		t.name = ptr(*e)
		return
	case ThreadEnded:
		if t := s.threads[th]; t != nil {
			t.ended = true
			delete(s.threads, th)
			if s.dead++; s.dead > 64 && s.dead > len(s.order)/2 {
				live := s.order[:0]
				for _, t := range s.order {
					if !t.ended {
						live = append(live, t)
					}
				}
				clear(s.order[len(live):])
				s.order, s.dead = live, 0
			}
		}
		return
	case VirtualThreadMounted:
		s.thread(th, true).mount = ptr(*e)
		return
	case ObjectWaitTimeout, VirtualThreadPinned:
		if t := s.threads[th]; t != nil && len(t.open) > 0 {
			t.open[len(t.open)-1].extra = ptr(*e)
		}
		return
	case ObjectClass, ClassInitLock, ConditionLock:
		f := s.facts[obj]
		if f == nil {
			if len(s.facts) >= maxLiveFacts {
				clear(s.facts)
			}
			f = &liveFact[E]{}
			s.facts[obj] = f
		}
		switch kind {
		case ObjectClass:
			f.class = ptr(*e)
		case ClassInitLock:
			f.clinit = ptr(*e)
		default:
			f.cond = ptr(*e)
		}
		return
	}
	if kind.End() != KindNone { // an interval begins
		t := s.thread(th, true)
		if len(t.open) == maxLiveOpen {
			t.open = append(t.open[:0], t.open[1:]...)
		}
		t.open = append(t.open, liveInterval[E]{begin: *e, fact: s.facts[obj]})
	} else if b := kind.Begin(); b != KindNone { // the innermost interval of its kind ends
		t := s.threads[th]
		if t == nil {
			return
		}
		for i := len(t.open) - 1; i >= 0; i-- {
			if k, _, _ := s.key(&t.open[i].begin); k == b {
				t.open = append(t.open[:i], t.open[i+1:]...)
				break
			}
		}
	}
}

func ptr[E any](e E) *E { return &e }

// Restate calls fn with the state, in the order a chunk restates it: per
// live thread (in the order first seen) its ThreadStarted, its
// VirtualThreadMounted, then per interval it is in, outermost first, the
// ObjectClass, ClassInitLock and ConditionLock of the interval's object, its begin and
// what follows the begin. fn gets copies it may change (their time, say),
// with the live thread whose state it restates: an object's class is
// restated as that thread's, as the agent restates it, not as the thread's
// that first gave it, which may have ended before (a reader of the range
// would take that thread for a live one with no name).
func (s *LiveState[E]) Restate(fn func(th ThreadID, e *E)) {
	var th ThreadID
	give := func(e *E) {
		if e != nil {
			c := *e
			fn(th, &c)
		}
	}
	var given map[ObjectID]bool // facts restated once
	for _, t := range s.order {
		if t.ended {
			continue
		}
		th = t.id
		give(t.name)
		give(t.mount)
		for i := range t.open {
			iv := &t.open[i]
			if kind, _, obj := s.key(&iv.begin); kind.Has(FObject) && obj != 0 && !given[obj] {
				f := s.facts[obj]
				if f == nil {
					f = iv.fact
				}
				if f != nil {
					if given == nil {
						given = map[ObjectID]bool{}
					}
					given[obj] = true
					give(f.class)
					give(f.clinit)
					give(f.cond)
				}
			}
			give(&iv.begin)
			give(iv.extra)
		}
	}
}

// ForgetFacts drops what is kept of obj's ObjectClass, ClassInitLock and
// ConditionLock: a reader that has handed them on (reader.Span's range
// filter) looks it up no more.
func (s *LiveState[E]) ForgetFacts(obj ObjectID) { delete(s.facts, obj) }

// HasFacts reports whether an ObjectClass, ClassInitLock or ConditionLock
// of obj is kept.
func (s *LiveState[E]) HasFacts(obj ObjectID) bool { return s.facts[obj] != nil }

// Facts returns the last ObjectClass, ClassInitLock and ConditionLock kept
// of obj (nil when none).
func (s *LiveState[E]) Facts(obj ObjectID) (class, clinit, cond *E) {
	if f := s.facts[obj]; f != nil {
		return f.class, f.clinit, f.cond
	}
	return nil, nil, nil
}
