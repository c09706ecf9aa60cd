package jfrtest

import "math"

// Sample is a small recording written by jfrtest with the JDK's types:
// main starts a worker, which contends on a Lock held by main, sleeps,
// parks and ends; main waits on the Lock and is notified by the worker,
// then joins the worker.
// Events are written out of time order, as JFR's per-thread buffers do.
func Sample() []byte {
	c := &Chunk{Classes: JDKClasses(), StartNanos: 1_700_000_000_000_000_000, StartTicks: 500, TicksPerSecond: 1_000_000}
	c.Thread(1, "main", 1, 100)
	c.Thread(2, "worker, \"w\"", 7, 101)
	c.Symbol(10, "Demo")
	c.Symbol(11, "Demo$Lock")
	c.Symbol(12, "main")
	c.Symbol(13, "([Ljava/lang/String;)V")
	c.Symbol(14, "run")
	c.Symbol(15, "()V")
	c.Symbol(16, "java/lang/Thread")
	c.Symbol(17, "sleep")
	c.Symbol(18, "(J)V")
	c.Symbol(19, "Demo$Blocker")
	c.Symbol(24, "join")
	c.Symbol(26, "java/lang/Object")
	c.Symbol(27, "wait")
	c.Class(20, 10)
	c.Class(21, 11)
	c.Class(22, 16)
	c.Class(23, 19)
	c.Class(25, 26)
	c.Method(30, 20, 12, 13, 9)     // Demo.main, public static
	c.Method(31, 20, 14, 15, 1)     // Demo.run
	c.Method(32, 22, 17, 18, 0x109) // Thread.sleep, native
	c.Method(33, 22, 24, 18, 0x11)  // Thread.join(long)
	c.Method(34, 25, 27, 18, 0x111) // Object.wait(long), native
	c.FrameType(40, "Interpreted")
	c.FrameType(41, "Native")
	c.Stack(50, false, StackFrame{Method: 30, Line: 12, BCI: 7, Type: 40})
	c.Stack(51, false, StackFrame{Method: 31, Line: 20, BCI: 3, Type: 40})
	c.Stack(52, true, StackFrame{Method: 32, Line: -1, BCI: 0, Type: 41}, StackFrame{Method: 31, Line: 22, BCI: 9, Type: 40})
	c.Stack(53, false, StackFrame{Method: 30, Line: 14, BCI: 20, Type: 40}, StackFrame{Method: 30, Line: 12, BCI: 7, Type: 40})
	c.Stack(54, false, StackFrame{Method: 34, Line: -1, BCI: 0, Type: 41}, StackFrame{Method: 33, Line: 100, BCI: 5, Type: 40},
		StackFrame{Method: 30, Line: 16, BCI: 30, Type: 40})
	// Ticks are microseconds: 1000 ticks = 1 ms.
	c.Event(TThreadEnd, Varint(9000), Varint(2), Varint(2))
	c.Event(TThreadSleep, Varint(5000), Varint(2000), Varint(2), Varint(52), Varint(2))
	c.Event(TMonitorEnter, Varint(2000), Varint(500), Varint(2), Varint(51), Varint(21), Varint(1), Varint(0x7f00))
	c.Event(TThreadPark, Varint(7000), Varint(100), Varint(2), Varint(51), Varint(23), Varint(5000), Varint(math.MinInt64), Varint(0x4000))
	c.Event(TThreadStart, Varint(1000), Varint(2), Varint(50), Varint(2), Varint(1))
	c.Event(TMonitorWait, Varint(3000), Varint(1000), Varint(1), Varint(53), Varint(21), Varint(2), Varint(0), Bool(false), Varint(0x7f00))
	// main joins the worker: a wait on the Thread, notified by the worker as it ends.
	c.Event(TMonitorWait, Varint(8000), Varint(1500), Varint(1), Varint(54), Varint(22), Varint(2), Varint(0), Bool(false), Varint(0x9000))
	return c.Bytes()
}
