package reader

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// ReadInfo reads a .info file of key=value lines. A repeated key (such as
// "warning") keeps every value, joined with "\n". Lines without '=' are
// ignored; Open reports them.
func ReadInfo(r io.Reader) map[string]string {
	m, _ := readInfo(r, "")
	return m
}

// readInfo is ReadInfo that also returns the malformed lines. .info is not
// CSV: the agent writes values (options, paths, commands) verbatim up to
// the newline.
func readInfo(r io.Reader, name string) (map[string]string, []error) {
	m := make(map[string]string)
	var errs []error
	br := bufio.NewReader(r)
	for n := 1; ; n++ {
		line, err := br.ReadString('\n')
		if err != nil && err != io.EOF {
			return m, append(errs, fmt.Errorf("reading %s: %w", name, err))
		}
		line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
		if line != "" {
			k, v, ok := strings.Cut(line, "=")
			if !ok || k == "" {
				errs = append(errs, &ParseError{File: name, Line: n, Msg: "want key=value"})
			} else if old, seen := m[k]; seen {
				m[k] = old + "\n" + v
			} else {
				m[k] = v
			}
		}
		if err == io.EOF {
			return m, errs
		}
	}
}
