package attach

import (
	"strings"
)

// The log selection HotSpot prints JNI's rebinding warnings under. An agent attached to a
// running JVM must rebind natives that are bound already (Object.wait, Unsafe.park, ...:
// HotSpot posts no NativeMethodBind for them again), and HotSpot's RegisterNatives warns, on
// the JVM's stdout by default, for every platform native rebound by a caller outside the
// platform's class loaders — the Attach Listener has no caller class at all:
//
//	[3.308s][warning][jni,resolve] Re-registering of platform native method: java.lang.Object.wait(J)V from code in a different classloader
//
// The application's stdout is the user's, not the profiler's.
const rebindTags = "jni+resolve"

// defaultStdout is how `VM.log list` shows HotSpot's default configuration of its stdout
// output, before and after WithoutRebindWarnings (the JVM adds " (reconfigured)" once an
// output was changed at run time).
const defaultStdout = "#0: stdout all=warning "

// WithoutRebindWarnings runs fn (a Load that rebinds natives, or the stop that binds them
// back) with the JVM's rebinding warnings off on its stdout, when that output has HotSpot's
// default configuration (warnings of every tag set): `VM.log output=#0
// what=jni+resolve=off` before, `what=jni+resolve=warning` after, which gives back the
// default exactly. A JVM whose logging was configured otherwise (-Xlog:...) is left as it
// is: its configuration is the user's, and the warnings then go where the user sent them.
// Only the jni+resolve tag set is touched, for the moment fn runs.
func (vm *VM) WithoutRebindWarnings(fn func() error) error {
	_, out, err := vm.Command("jcmd", "VM.log list")
	if err != nil || !stdoutIsDefault(out) {
		return fn()
	}
	if code, _, err := vm.Command("jcmd", "VM.log output=#0 what="+rebindTags+"=off"); err != nil || code != 0 {
		return fn()
	}
	defer vm.Command("jcmd", "VM.log output=#0 what="+rebindTags+"=warning")
	return fn()
}

// stdoutIsDefault reports whether `VM.log list`'s output #0 is stdout with HotSpot's default
// selection (all=warning and nothing else).
func stdoutIsDefault(list string) bool {
	for _, l := range strings.Split(list, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "#0:") {
			return strings.HasPrefix(l+" ", defaultStdout)
		}
	}
	return false
}
