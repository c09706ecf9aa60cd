package report

import (
	"orca/internal/analysis"
	"orca/internal/model"
	"orca/internal/reader"
)

// BuildOptions are the model's options orca report builds rec with, for
// a report of the threads thread matches ("" every thread's): with spill,
// the threads' states go to a temporary file as the fold goes and,
// without thread (whose View sums every interval again), the fold keeps
// none it is done with — the owners' changes and the blame spans read
// back from their logs, the threads packed — and the analyses read them
// back (docs/streaming.md). The wait-for graph is made at the end alone;
// without thread the report prints the edges' counts alone, so none is
// kept. The JDK threads' test reads each thread's intervals' stacks
// alone: marked as the fold goes (analysis.JDKStackMark). The report's
// own options go with them: Streamed and LetGoTails (this Report the
// Model's one reader). FuzzReportStreamed holds what these build to the
// model built in memory and reported whole.
func BuildOptions(rec *reader.Recording, thread string, spill bool) model.Options {
	lean := spill && thread == ""
	return model.Options{NoEdges: thread == "", Spill: spill, DropIntervals: lean, SpillOwners: lean,
		PackThreads: lean, SpansFromLogs: lean, EndGraphOnly: true, StackMark: analysis.JDKStackMark(rec.FrameName)}
}
