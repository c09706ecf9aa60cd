package report

import (
	"reflect"
	"testing"
)

// TestHoldSites: the holding sites of a lock are named so that no two read
// alike, by the program's first frame, a caller and the frames where they
// differ ("…" for those passed over); a
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
	// Two equal stacks (not two sites of one recording) have nothing to
	// tell them apart: the name with one caller.
	same := holdSites([]HoldSite{{Frames: getInt}, {Frames: getInt}})
	if same[0] != same[1] || same[0] != holdSite(getInt, 1) {
		t.Errorf("two equal stacks: %q", same)
	}
	// H2's Sequence.getNext under the same callers from two lines of
	// H2Bench$Worker.run: the frame that differs, after "…" for the ten
	// the same, not all twelve.
	h2 := func(line string) []string {
		return []string{
			"org.h2.schema.Sequence.getNext(Sequence.java:419)",
			"org.h2.engine.SessionLocal.getNextValueFor(SessionLocal.java:1017)",
			"org.h2.table.Column.validateConvertUpdateSequence(Column.java:359)",
			"org.h2.table.Table.convertInsertRow(Table.java:926)",
			"org.h2.command.dml.Insert.insertRows(Insert.java:167)",
			"H2Bench$Worker.run(H2Bench.java:" + line + ")",
		}
	}
	got = holdSites([]HoldSite{{Frames: h2("154")}, {Frames: h2("167")}, {Frames: getInt}})
	want = []string{
		"H2Bench$Worker.run(H2Bench.java:154) → … → org.h2.engine.SessionLocal.getNextValueFor(SessionLocal.java:1017) → org.h2.schema.Sequence.getNext(Sequence.java:419)",
		"H2Bench$Worker.run(H2Bench.java:167) → … → org.h2.engine.SessionLocal.getNextValueFor(SessionLocal.java:1017) → org.h2.schema.Sequence.getNext(Sequence.java:419)",
		"org.hsqldb.rowio.RowInputBinary.readInteger(Unknown Source) → org.hsqldb.map.ValuePool.getInt(Unknown Source)",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("holdSites of H2:\n got %q\nwant %q", got, want)
	}
}
