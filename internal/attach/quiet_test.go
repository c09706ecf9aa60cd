package attach

import "testing"

func TestStdoutIsDefault(t *testing.T) {
	head := "Available log levels: off, trace, debug, info, warning, error\nDescribed tag sets:\n logging: Logging for the log framework itself\nLog output configuration:\n"
	for _, c := range []struct {
		list string
		want bool
	}{
		{head + " #0: stdout all=warning uptime,level,tags\n #1: stderr all=off uptime,level,tags\n", true},
		// After WithoutRebindWarnings gave it back (JDK 17's words).
		{head + " #0: stdout all=warning uptime,level,tags (reconfigured)\n #1: stderr all=off uptime,level,tags\n", true},
		// While it runs, or configured by the user: left alone.
		{head + " #0: stdout all=warning,jni+resolve=off uptime,level,tags (reconfigured)\n", false},
		{head + " #0: stdout all=info uptime,level,tags\n", false},
		{head + " #0: stdout all=off uptime,level,tags\n #1: stderr all=off uptime,level,tags\n", false},
		{head + " #0: stdout all=warning,gc=info uptime,level,tags\n", false},
		{"", false},
		{"Unknown diagnostic command", false},
	} {
		if got := stdoutIsDefault(c.list); got != c.want {
			t.Errorf("stdoutIsDefault(%q) = %v, want %v", c.list, got, c.want)
		}
	}
}
