package report

import (
	"reflect"
	"testing"
)

// TestHoldSites: the holding sites of a lock are named so that no two read
// alike, by the program's first frame and as many callers as it takes; a
// frame compiled without line numbers is a caller, a lambda's generated
// frame is not. HSQLDB (no line numbers) printed two sites both as
// "java.lang.Thread.run(Thread.java:840) → org.hsqldb.map.ValuePool.getInt(Unknown Source)".
func TestHoldSites(t *testing.T) {
	getInt := []string{
		"org.hsqldb.map.ValuePool.getInt(Unknown Source)",
		"org.hsqldb.rowio.RowInputBinary.readInteger(Unknown Source)",
		"org.hsqldb.rowio.RowInputBase.readData(Unknown Source)",
		"org.hsqldb.Session.execute(Unknown Source)",
		"java.lang.Thread.run(Thread.java:840)",
	}
	other := []string{
		"org.hsqldb.map.ValuePool.getInt(Unknown Source)",
		"org.hsqldb.rowio.RowInputBinary.readInteger(Unknown Source)",
		"org.hsqldb.rowio.RowInputBinary.readData(Unknown Source)",
		"org.hsqldb.Session.execute(Unknown Source)",
		"java.lang.Thread.run(Thread.java:840)",
	}
	lambda := []string{
		"java.util.concurrent.locks.ReentrantLock.lock(ReentrantLock.java:322)",
		"app.Store.put(Store.java:20)",
		"app.Main$$Lambda/0x0000000801001234.run(Unknown Source)",
		"app.Main.lambda$main$0(Main.java:9)",
	}
	got := holdSites([]HoldSite{{Frames: getInt}, {Frames: other}, {Frames: lambda}})
	want := []string{
		"org.hsqldb.rowio.RowInputBase.readData(Unknown Source) → org.hsqldb.rowio.RowInputBinary.readInteger(Unknown Source) → org.hsqldb.map.ValuePool.getInt(Unknown Source)",
		"org.hsqldb.rowio.RowInputBinary.readData(Unknown Source) → org.hsqldb.rowio.RowInputBinary.readInteger(Unknown Source) → org.hsqldb.map.ValuePool.getInt(Unknown Source)",
		"app.Main.lambda$main$0(Main.java:9) → app.Store.put(Store.java:20)",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("holdSites:\n got %q\nwant %q", got, want)
	}
	// Sites that differ only past what is shown still end: the whole
	// stack is the most a name can say.
	same := holdSites([]HoldSite{{Frames: getInt}, {Frames: getInt}})
	if same[0] != same[1] || same[0] != holdSite(getInt, len(getInt)) {
		t.Errorf("two equal stacks: %q", same)
	}
}
