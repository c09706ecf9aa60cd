package export

import (
	"io"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/proto"

	"orca/internal/model"
	"orca/internal/reader"
	"orca/internal/synth"
)

// countingWriter counts the bytes an export writes.
type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

// BenchmarkExport exports a synthetic 64 MiB recording (internal/synth:
// a busy server's threads) in each format, all kinds, and reports the
// output's size.
func BenchmarkExport(b *testing.B) {
	rec, res := benchModel(b)
	for _, f := range Formats {
		b.Run(f.Name, func(b *testing.B) {
			var size int64
			for b.Loop() {
				w := &countingWriter{}
				if err := f.Write(w, rec, res.Model, Options{Kinds: All}); err != nil {
					b.Fatal(err)
				}
				size = w.n
			}
			b.ReportMetric(float64(size)/(1<<20), "MiB")
		})
	}
}

// BenchmarkOTLP builds and marshals the OTLP request of orca push for the
// same synthetic recording (every kind, the samples) and reports its size
// before gzip.
func BenchmarkOTLP(b *testing.B) {
	rec, res := benchModel(b)
	var size int
	for b.Loop() {
		req, err := OTLP(rec, res.Model, OTLPOptions{Samples: true})
		if err != nil {
			b.Fatal(err)
		}
		raw, err := proto.Marshal(req)
		if err != nil {
			b.Fatal(err)
		}
		size = len(raw)
	}
	b.ReportMetric(float64(size)/(1<<20), "MiB")
}

// benchModel writes the synthetic 64 MiB recording and builds its model.
func benchModel(b *testing.B) (*reader.Recording, *model.Result) {
	prefix := filepath.Join(b.TempDir(), "synth")
	if _, err := synth.WriteRecording(prefix, synth.Options{}); err != nil {
		b.Fatal(err)
	}
	rec, err := reader.Open(prefix)
	if err != nil {
		b.Fatal(err)
	}
	res, err := model.Build(rec, model.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return rec, res
}

var _ io.Writer = (*countingWriter)(nil)
