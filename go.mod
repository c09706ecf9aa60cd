module orca

go 1.26.8

require (
	github.com/DataDog/sketches-go v1.4.8
	github.com/chromedp/cdproto v0.159.0
	github.com/chromedp/chromedp v0.23.0
	github.com/google/pprof v0.0.0-20260906184651-6331bc6350fe
	github.com/ianlancetaylor/demangle v0.0.0-20260724033716-83e58baca724
	github.com/klauspost/compress v1.20.4
	go.opentelemetry.io/proto/slim/otlp v1.11.1
	go.opentelemetry.io/proto/slim/otlp/collector/profiles/v1development v0.4.1
	go.opentelemetry.io/proto/slim/otlp/profiles/v1development v0.4.1
	golang.org/x/sys v0.50.0
	golang.org/x/text v0.31.0
	golang.org/x/tools v0.39.0
	google.golang.org/protobuf v1.36.12
)

require github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
