// Orca-gen writes a synthetic Orca recording, for benchmarks and tests of
// the reader, the model and everything above them:
//
//	orca-gen [-size 1G] [-seed 1] [-threads 200] [-monitors 300] [-semaphores 40]
//	         [-methods 2000] [-stacks 3000] [-format compact] -o PREFIX
//	orca-gen -convoy 1000 [-handoffs 10000] -o PREFIX
//
// It writes PREFIX.orca (events until -size bytes), PREFIX.methods,
// PREFIX.classtable and PREFIX.info; -format compact writes PREFIX.orca in
// the compact encoding (docs/format.md). The output depends only on the flags:
// the same flags give the same bytes. See internal/synth for what the
// recording contains. With -convoy N it writes a lock convoy instead: N
// threads queued on one monitor, its owner changing at every hand-off
// (synth.Generator.WriteConvoy).
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"orca/internal/format"
	"orca/internal/synth"
)

func main() {
	var opt synth.Options
	prefix := flag.String("o", "", "output prefix (required)")
	size := flag.String("size", "64M", "size of the .orca file: bytes, or with a K, M or G suffix (powers of 1024)")
	flag.Uint64Var(&opt.Seed, "seed", 1, "random seed")
	flag.IntVar(&opt.Threads, "threads", 200, "long-lived threads")
	flag.IntVar(&opt.Monitors, "monitors", 300, "monitors")
	flag.IntVar(&opt.Semaphores, "semaphores", 40, "semaphores")
	flag.IntVar(&opt.Classes, "classes", 250, "classes")
	flag.IntVar(&opt.Methods, "methods", 2000, "methods")
	flag.IntVar(&opt.Stacks, "stacks", 3000, "distinct stacks")
	flag.IntVar(&opt.Slow, "slow", 1, "make every duration N times longer: the same mix at 1/N the events a second (5: a busy broker's ~1 MB/s compact)")
	encoding := flag.String("format", "seed", "the .orca's encoding: seed (text) or compact")
	quiet := flag.Bool("q", false, "print nothing on success")
	var convoy synth.Convoy
	flag.IntVar(&convoy.Threads, "convoy", 0, "write a lock convoy of this many threads on one monitor instead")
	flag.IntVar(&convoy.Handoffs, "handoffs", 0, "with -convoy: hand-offs of the monitor (default 10 × threads)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: orca-gen [flags] -o PREFIX")
		flag.PrintDefaults()
	}
	flag.Parse()
	n, err := parseSize(*size)
	enc, encOK := format.ParseEncoding(*encoding)
	if *prefix == "" || flag.NArg() > 0 || err != nil || !encOK {
		if err != nil {
			fmt.Fprintf(os.Stderr, "orca-gen: -size: %v\n", err)
		}
		if !encOK {
			fmt.Fprintf(os.Stderr, "orca-gen: -format %q: want seed or compact\n", *encoding)
		}
		flag.Usage()
		os.Exit(2)
	}
	opt.Size, opt.Encoding = n, enc
	t0 := time.Now()
	var st synth.Stats
	if convoy.Threads > 0 {
		st, err = synth.WriteConvoyRecording(*prefix, opt, convoy)
	} else {
		st, err = synth.WriteRecording(*prefix, opt)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "orca-gen: %v\n", err)
		os.Exit(1)
	}
	if !*quiet {
		fmt.Fprintf(os.Stderr, "orca-gen: %s.orca: %d bytes, %d events, %.1f s of recording, written in %.1f s\n",
			*prefix, st.Bytes, st.Lines, (st.End - st.Start).Seconds(), time.Since(t0).Seconds())
	}
}

// parseSize reads "1G", "512M", "100K" or plain bytes.
func parseSize(s string) (int64, error) {
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "K"), strings.HasSuffix(s, "k"):
		mult = 1 << 10
	case strings.HasSuffix(s, "M"), strings.HasSuffix(s, "m"):
		mult = 1 << 20
	case strings.HasSuffix(s, "G"), strings.HasSuffix(s, "g"):
		mult = 1 << 30
	}
	if mult > 1 {
		s = s[:len(s)-1]
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%q: want a positive size like 1G or 512M", s)
	}
	return n * mult, nil
}
