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
}

// InitLock returns the class initialisation obj is the lock of, or nil
// when it is not the JVM's lock of a class.
func (m *Model) InitLock(obj format.ObjectID) *ClassInit { return m.initLocks[obj] }

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
	seen := false
	for _, t := range ci.Waiters {
		seen = seen || t == ev.Thread
	}
	if !seen {
		ci.Waiters = append(ci.Waiters, ev.Thread)
	}
	seen = false
	for _, s := range ci.Sites {
		seen = seen || s == stack
	}
	if !seen {
		ci.Sites = append(ci.Sites, stack)
	}
}
