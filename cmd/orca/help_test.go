package main

import (
	"bytes"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestAgentPathHelp (issue 31, item 10): help agent-path said "The agent's options are listed in
// 'orca help record'", which lists orca record's flags, not the agent's. It lists them itself
// now: every key the agent parses (agent/core/options.c) is named, as KEY=.
func TestAgentPathHelp(t *testing.T) {
	src, err := os.ReadFile("../../agent/core/options.c")
	if err != nil {
		t.Fatal(err)
	}
	keys := regexp.MustCompile(`!strcmp\(key, "(\w+)"\)`).FindAllSubmatch(src, -1)
	if len(keys) < 10 {
		t.Fatalf("found %d option keys in agent/core/options.c: the pattern no longer matches", len(keys))
	}
	var out bytes.Buffer
	if code := run(ui{nil, &out, io.Discard}, []string{"help", "agent-path"}); code != 0 {
		t.Fatalf("orca help agent-path: exit %d", code)
	}
	help := out.String()
	for _, k := range keys {
		if !strings.Contains(help, string(k[1])+"=") {
			t.Errorf("orca help agent-path does not name the agent's option %s=", k[1])
		}
	}
	if strings.Contains(help, "listed in 'orca help record'") {
		t.Errorf("orca help agent-path still sends to help record for the agent's options:\n%s", help)
	}
}
