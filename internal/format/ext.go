package format

// PREFIX.ext holds what an imported recording (orca import, from JFR) knows
// and the Orca format has no field for: parks, the notifier of a wait, the
// class of a monitor. Its lines follow the .orca conventions
// (timestamp,Kind,fields…); docs/format.md, "Extension: PREFIX.ext",
// describes them. This table is the one source of truth for Writer.Ext and
// the reader (reader.ExtEvents). The agent does not write .ext, so the
// table is not in agent/core/events.h.

// ExtKind identifies the kind of a .ext line.
type ExtKind uint8

// The .ext line kinds. ExtUnknown is a kind not in this table: readers skip
// it (later writers may add kinds).
const (
	ExtUnknown        ExtKind = iota
	ExtObjectClass            // the class of an object, at its first appearance
	ExtThreadPark             // LockSupport.park* entered
	ExtThreadUnparked         // … and returned (unparked, timed out or interrupted)
	ExtWaitNotifier           // how the Object.wait that just ended (ObjectWaited) ended
	ExtSleepTime              // the time a Thread.sleep that just began asked for
	ExtJavaThread             // the JVM's ids of a thread, at its ThreadStarted
	NumExtKinds
)

// ExtField is the meaning of one field of a .ext line after its name.
type ExtField uint8

// Fields of .ext lines.
const (
	XThread   ExtField = iota + 1 // the thread the line is about: 8 hex digits
	XObject                       // an object (monitor, park blocker): 8 hex digits, 00000000 for none
	XOther                        // another thread (a notifier): 8 hex digits, 00000000 for none
	XClass                        // a class signature, "Ljava/lang/Object;" (text)
	XTimeout                      // a duration in decimal nanoseconds; empty for none
	XUntil                        // a deadline in decimal nanoseconds since the Unix epoch; empty for none
	XTimedOut                     // true or false
	XJavaID                       // a java.lang.Thread id (Thread.getId), decimal
	XOSID                         // an OS thread id, decimal
	XStack                        // a stack trace, as in .orca
)

// ExtSpec describes one .ext line kind: its name and fields.
type ExtSpec struct {
	Kind   ExtKind
	Name   string
	Fields []ExtField
}

// ExtSpecs is the .ext table, indexed by ExtKind.
var ExtSpecs = [NumExtKinds]ExtSpec{
	ExtObjectClass:    {ExtObjectClass, "ObjectClass", []ExtField{XObject, XClass}},
	ExtThreadPark:     {ExtThreadPark, "ThreadPark", []ExtField{XThread, XObject, XTimeout, XUntil, XStack}},
	ExtThreadUnparked: {ExtThreadUnparked, "ThreadUnparked", []ExtField{XThread, XObject, XStack}},
	ExtWaitNotifier:   {ExtWaitNotifier, "WaitNotifier", []ExtField{XThread, XObject, XOther, XTimeout, XTimedOut}},
	ExtSleepTime:      {ExtSleepTime, "SleepTime", []ExtField{XThread, XTimeout}},
	ExtJavaThread:     {ExtJavaThread, "JavaThread", []ExtField{XThread, XJavaID, XOSID}},
}

func (k ExtKind) String() string {
	if k == ExtUnknown || k >= NumExtKinds {
		return "Unknown"
	}
	return ExtSpecs[k].Name
}

// ExtKindByName maps a kind on a .ext line to its ExtKind.
var ExtKindByName = func() map[string]ExtKind {
	m := make(map[string]ExtKind, NumExtKinds)
	for k := ExtKind(1); k < NumExtKinds; k++ {
		m[ExtSpecs[k].Name] = k
	}
	return m
}()
