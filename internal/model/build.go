package model

import (
	"errors"
	"fmt"
	"io"

	"orca/internal/reader"
)

// Options control Build.
type Options struct {
	// Progress, if set, is called now and then with the events folded so
	// far and the bytes read of the .orca file.
	Progress func(events int, bytes int64)
}

// Result is a built model with what reading the files reported.
type Result struct {
	Model       *Model
	ParseErrors []error // malformed .orca lines (file:line), at most 1000 kept
	Malformed   int     // all malformed lines
	Truncated   bool    // the last line was cut short (kill -9)
}

// Build reads rec's events in one streaming pass and folds them.
func Build(rec *reader.Recording, opt Options) (*Result, error) {
	evs, closer, err := rec.Events()
	if err != nil {
		return nil, err
	}
	defer closer.Close()
	b := New()
	res := &Result{}
	for n := 0; ; n++ {
		ev, err := evs.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *reader.ParseError
			if errors.As(err, &pe) {
				res.Malformed++
				if len(res.ParseErrors) < 1000 {
					res.ParseErrors = append(res.ParseErrors, err)
				}
				continue
			}
			return nil, fmt.Errorf("reading %s.orca: %w", rec.Prefix, err)
		}
		b.Event(&ev)
		if opt.Progress != nil && n%(1<<18) == 0 {
			opt.Progress(n, evs.Offset())
		}
	}
	res.Truncated = evs.Truncated()
	res.Model = b.Finalize()
	return res, nil
}
