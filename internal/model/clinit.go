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
	// seen: Waiters and Sites as sets, for the fold (a class many threads
	// wait on would cost a scan of them all at each wait).
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

// classInit folds a ClassInitLock or ClassInitWaited line.
func (b *Builder) classInit(ev *reader.Event, stack StackID) {
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
	if ci.seenWaiter == nil {
		ci.seenWaiter, ci.seenSite = &keySet{}, &keySet{}
	}
	if ci.seenWaiter.add(uint64(ev.Thread)) {
		ci.Waiters = append(ci.Waiters, ev.Thread)
	}
	if ci.seenSite.add(uint64(stack)) {
		ci.Sites = append(ci.Sites, stack)
	}
}
