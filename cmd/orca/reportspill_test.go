package main

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"orca/internal/model"
)

// TestReportSpillError checks that a failed read of the model's temporary
// file, however wrapped, is one line that names the file's problem and
// says how to do without the file; other errors are left as they are.
func TestReportSpillError(t *testing.T) {
	fault := errors.New("read the model's temporary file: input/output error")
	err := spillAdvice(fmt.Errorf("building: %w", &model.SpillError{Err: fault}))
	if msg := err.Error(); !errors.Is(err, fault) || strings.Contains(msg, "\n") ||
		!strings.Contains(msg, "input/output error") || !strings.Contains(msg, "ORCA_REPORT_SPILL=0") {
		t.Errorf("spillAdvice: %q", msg)
	}
	other := errors.New("read 10 of 12 events: the file is cut")
	if got := spillAdvice(other); got != other {
		t.Errorf("spillAdvice(%v) = %v", other, got)
	}
}
