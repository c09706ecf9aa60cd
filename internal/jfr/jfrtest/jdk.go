package jfrtest

// Type ids of JDKClasses.
const (
	TLong int64 = iota + 100
	TInt
	TBoolean
	TString
	TThread
	TSymbol
	TClass
	TMethod
	TFrameType
	TStackFrame
	TStackTrace
	TMonitorEnter
	TMonitorWait
	TThreadPark
	TThreadSleep
	TThreadStart
	TThreadEnd
	TActiveSetting
)

// JDKClasses returns the types orca import reads, with the fields (names,
// order, constant pools, units) of JDK 17's metadata.
func JDKClasses() []Class {
	start := Field{Name: "startTime", Type: TLong}
	dur := Field{Name: "duration", Type: TLong, Timespan: "TICKS"}
	thread := Field{Name: "eventThread", Type: TThread, Pool: true}
	stack := Field{Name: "stackTrace", Type: TStackTrace, Pool: true}
	return []Class{
		{ID: TLong, Name: "long"},
		{ID: TInt, Name: "int"},
		{ID: TBoolean, Name: "boolean"},
		{ID: TString, Name: "java.lang.String"},
		{ID: TThread, Name: "java.lang.Thread", Fields: []Field{
			{Name: "osName", Type: TString}, {Name: "osThreadId", Type: TLong},
			{Name: "javaName", Type: TString}, {Name: "javaThreadId", Type: TLong}}},
		{ID: TSymbol, Name: "jdk.types.Symbol", Fields: []Field{{Name: "string", Type: TString}}},
		{ID: TClass, Name: "java.lang.Class", Fields: []Field{
			{Name: "name", Type: TSymbol, Pool: true}, {Name: "modifiers", Type: TInt}}},
		{ID: TMethod, Name: "jdk.types.Method", Fields: []Field{
			{Name: "type", Type: TClass, Pool: true}, {Name: "name", Type: TSymbol, Pool: true},
			{Name: "descriptor", Type: TSymbol, Pool: true}, {Name: "modifiers", Type: TInt},
			{Name: "hidden", Type: TBoolean}}},
		{ID: TFrameType, Name: "jdk.types.FrameType", Fields: []Field{{Name: "description", Type: TString}}},
		{ID: TStackFrame, Name: "jdk.types.StackFrame", Fields: []Field{
			{Name: "method", Type: TMethod, Pool: true}, {Name: "lineNumber", Type: TInt},
			{Name: "bytecodeIndex", Type: TInt}, {Name: "type", Type: TFrameType, Pool: true}}},
		{ID: TStackTrace, Name: "jdk.types.StackTrace", Fields: []Field{
			{Name: "truncated", Type: TBoolean}, {Name: "frames", Type: TStackFrame, Array: true}}},
		{ID: TMonitorEnter, Name: "jdk.JavaMonitorEnter", Fields: []Field{start, dur, thread, stack,
			{Name: "monitorClass", Type: TClass, Pool: true}, {Name: "previousOwner", Type: TThread, Pool: true},
			{Name: "address", Type: TLong}}},
		{ID: TMonitorWait, Name: "jdk.JavaMonitorWait", Fields: []Field{start, dur, thread, stack,
			{Name: "monitorClass", Type: TClass, Pool: true}, {Name: "notifier", Type: TThread, Pool: true},
			{Name: "timeout", Type: TLong, Timespan: "MILLISECONDS"}, {Name: "timedOut", Type: TBoolean},
			{Name: "address", Type: TLong}}},
		{ID: TThreadPark, Name: "jdk.ThreadPark", Fields: []Field{start, dur, thread, stack,
			{Name: "parkedClass", Type: TClass, Pool: true}, {Name: "timeout", Type: TLong, Timespan: "NANOSECONDS"},
			{Name: "until", Type: TLong}, {Name: "address", Type: TLong}}},
		{ID: TThreadSleep, Name: "jdk.ThreadSleep", Fields: []Field{start, dur, thread, stack,
			{Name: "time", Type: TLong, Timespan: "MILLISECONDS"}}},
		{ID: TThreadStart, Name: "jdk.ThreadStart", Fields: []Field{start, thread, stack,
			{Name: "thread", Type: TThread, Pool: true}, {Name: "parentThread", Type: TThread, Pool: true}}},
		{ID: TThreadEnd, Name: "jdk.ThreadEnd", Fields: []Field{start, thread,
			{Name: "thread", Type: TThread, Pool: true}}},
		{ID: TActiveSetting, Name: "jdk.ActiveSetting", Fields: []Field{start, dur, thread, stack,
			{Name: "id", Type: TLong}, {Name: "name", Type: TString}, {Name: "value", Type: TString}}},
	}
}

// Setting adds a jdk.ActiveSetting event at time 0 by thread 0 (none): the
// setting name of the event type typ has value.
func (c *Chunk) Setting(typ int64, name, value string) {
	c.Event(TActiveSetting, Varint(0), Varint(0), Varint(0), Varint(0), Varint(typ), String(name), String(value))
}

// DefaultSettings adds the settings of JDK 17's default.jfc for the event
// types orca import reads: 20 ms thresholds, stack traces.
func (c *Chunk) DefaultSettings() {
	for _, typ := range []int64{TMonitorEnter, TMonitorWait, TThreadPark, TThreadSleep} {
		c.Setting(typ, "enabled", "true")
		c.Setting(typ, "stackTrace", "true")
		c.Setting(typ, "threshold", "20 ms")
	}
	c.Setting(TThreadStart, "enabled", "true")
	c.Setting(TThreadStart, "stackTrace", "true")
	c.Setting(TThreadEnd, "enabled", "true")
}

// Thread adds a java.lang.Thread constant.
func (c *Chunk) Thread(key int64, name string, javaID, osID int64) {
	c.Constant(TThread, key, String(name), Varint(osID), String(name), Varint(javaID))
}

// Symbol adds a jdk.types.Symbol constant.
func (c *Chunk) Symbol(key int64, s string) { c.Constant(TSymbol, key, String(s)) }

// Class adds a java.lang.Class constant named by a symbol.
func (c *Chunk) Class(key, name int64) { c.Constant(TClass, key, Varint(name), Varint(1)) }

// Method adds a jdk.types.Method constant.
func (c *Chunk) Method(key, class, name, descriptor, modifiers int64) {
	c.Constant(TMethod, key, Varint(class), Varint(name), Varint(descriptor), Varint(modifiers), Bool(false))
}

// FrameType adds a jdk.types.FrameType constant.
func (c *Chunk) FrameType(key int64, description string) {
	c.Constant(TFrameType, key, String(description))
}

// StackFrame is one frame of Stack.
type StackFrame struct{ Method, Line, BCI, Type int64 }

// Stack adds a jdk.types.StackTrace constant.
func (c *Chunk) Stack(key int64, truncated bool, frames ...StackFrame) {
	v := Cat(Bool(truncated), Varint(int64(len(frames))))
	for _, f := range frames {
		v = Cat(v, Varint(f.Method), Varint(f.Line), Varint(f.BCI), Varint(f.Type))
	}
	c.Constant(TStackTrace, key, v)
}
