package model

import (
	"orca/internal/format"
	"orca/internal/reader"
)

// ClassInit is the JVM's own lock of a class being linked or initialised:
// HotSpot's init lock, an int[] in the class's mirror (JDK 17 and 22+;
// docs/agent.md, "Class initialisation"). Threads that block on it are
// contentions of its Lock (a Monitor, blamed on the thread that held it);
// threads that waited on it for another thread's initialisation of the
// class are counted here: the JVM posts only the end of such a wait, so
// its start, its length and the initialiser are not known.
type ClassInit struct {
	Object format.ObjectID
	// Class is the class the thread's frame asked to initialise (the lock
	// may be its superclass's or superinterface's), "" when no frame named one.
	Class   string
	Waits   int               // ClassInitWaited: waits that ended
	Waiters []format.ThreadID // distinct threads that waited, in order
	Sites   []StackID         // where each distinct wait ended, in order
	// seenWaiter: Waiters as a set, for the fold, made when a thread
	// that does not know all the class initialisations it waited on
	// waits (tbody.inits: a thread brought back; a class many threads
	// wait on would cost a scan of them all at each wait); seenSite:
	// Sites as a set.
	seenWaiter *keySet
	seenSite   *keySet
}

// InitLock returns the class initialisation obj is the lock of, or nil
// when it is not the JVM's lock of a class.
func (m *Model) InitLock(obj format.ObjectID) *ClassInit { return m.initLocks[obj] }

// InitName is what every view calls the JVM's lock of a class being
// initialised, whose class is class (a signature, "" when no frame named
// one): "class initialisation of com.example.Foo". To Java it is an int[],
// which the program never made; the report, the viewer and the exports
// all name it with these words (ClassName).
func InitName(class string) string {
	if class == "" {
		return "class initialisation (of a class no frame named)"
	}
	return "class initialisation of " + format.JavaName(class)
}

// ClassName is the name every view gives obj's class: InitName for the
// JVM's lock of a class being initialised, else the Java name of its class
// (Model.Class: "java.util.HashMap", "int[]"); "" when unknown. The
// report's lock names, the viewer's and the exports' class labels and
// folded leaves are this one string.
func (m *Model) ClassName(obj format.ObjectID) string {
	if ci := m.InitLock(obj); ci != nil {
		return InitName(ci.Class)
	}
	if c := m.Class(obj); c != "" {
		return format.JavaName(c)
	}
	return ""
}

// classInit folds a ClassInitLock or ClassInitWaited line of ts.
func (b *Builder) classInit(ts *tstate, ev *reader.Event, stack StackID) {
	ci := b.m.initLocks[ev.Object]
	if ci == nil {
		ci = &ClassInit{Object: ev.Object}
		if b.m.initLocks == nil {
			b.m.initLocks = map[format.ObjectID]*ClassInit{}
		}
		b.m.initLocks[ev.Object] = ci
		b.m.ClassInits = append(b.m.ClassInits, ci)
	}
	if ev.Kind == format.ClassInitLock {
		if ev.Class != "" {
			ci.Class = ev.Class
		}
		return
	}
	ci.Waits++
	if ci.seenSite == nil {
		ci.seenSite = &keySet{}
	}
	if b.newWaiter(ts, ci, ev.Thread) {
		ci.Waiters = append(ci.Waiters, ev.Thread)
	}
	if ci.seenSite.add(uint64(stack)) {
		ci.Sites = append(ci.Sites, stack)
	}
}

// initsMost is the most class initialisations a thread's own list
// (tbody.inits) holds.
var initsMost = 64

// newWaiter reports whether th, of ts, had not waited on ci yet, and
// notes that it has: in the thread's own list (tbody.inits) when it holds
// all its waits, else in the class's set of its waiters, made then from
// Waiters and kept from then on.
func (b *Builder) newWaiter(ts *tstate, ci *ClassInit, th format.ThreadID) bool {
	bd := ts.body
	if ts.id != th || !bd.initsAll {
		if ci.seenWaiter == nil {
			ci.seenWaiter = &keySet{}
			for _, w := range ci.Waiters {
				ci.seenWaiter.add(uint64(w))
			}
		}
		return ci.seenWaiter.add(uint64(th))
	}
	for _, c := range bd.inits {
		if c == ci {
			return false
		}
	}
	if len(bd.inits) == initsMost {
		// A thread of many: the classes' sets from now on, not a scan
		// of its list at each wait (those made then from Waiters have
		// it already).
		clear(bd.inits)
		bd.inits, bd.initsAll = bd.inits[:0], false
		return b.newWaiter(ts, ci, th)
	}
	bd.inits = append(bd.inits, ci)
	if ci.seenWaiter != nil {
		ci.seenWaiter.add(uint64(th))
	}
	return true
}
