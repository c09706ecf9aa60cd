package model

import "orca/internal/format"

// SamplesByStack sums t's samples of kind (format.SampleNone: both) by
// stack, as Model.SamplesByStack sums every thread's: a per-thread profile
// (the pprof export's thread labels) costs t's samples, where a
// SampleQuery.Threads filter per thread would visit every thread for each.
func (t *Thread) SamplesByStack(kind format.SampleKind) []StackSamples {
	one := Model{Threads: []*Thread{t}}
	return one.SamplesByStack(SampleQuery{Kind: kind})
}
