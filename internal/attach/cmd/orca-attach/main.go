// Orca-attach tries package attach by hand: it attaches to a HotSpot JVM and runs one attach
// command, printing the JVM's result code and output. It is no part of the orca command.
//
// Usage:
//
//	go run ./internal/attach/cmd/orca-attach PID properties
//	go run ./internal/attach/cmd/orca-attach PID jcmd VM.version
//	go run ./internal/attach/cmd/orca-attach PID threaddump
//	go run ./internal/attach/cmd/orca-attach PID getversion
//	go run ./internal/attach/cmd/orca-attach PID load /abs/path/libagent.so [OPTIONS]
//
// The exit status is 0 when the command's result code is 0, 1 otherwise, 2 on a usage error.
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"orca/internal/attach"
)

func main() {
	timeout := flag.Duration("timeout", attach.DefaultTimeout, "how long to wait for the JVM's attach listener to start")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: orca-attach [-timeout D] PID COMMAND [ARG...]\n       orca-attach PID load /abs/libagent.so [OPTIONS]")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() < 2 {
		flag.Usage()
		os.Exit(2)
	}
	pid, err := strconv.Atoi(flag.Arg(0))
	if err != nil {
		fmt.Fprintf(os.Stderr, "orca-attach: pid %q: not a number\n", flag.Arg(0))
		os.Exit(2)
	}
	vm, err := attach.AttachTimeout(pid, *timeout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "orca-attach:", err)
		os.Exit(1)
	}
	name, args := flag.Arg(1), flag.Args()[2:]
	var code int
	var out string
	if name == "load" {
		if len(args) < 1 || len(args) > 2 {
			flag.Usage()
			os.Exit(2)
		}
		code, out, err = vm.Load(args[0], strings.Join(args[1:], ""))
	} else {
		code, out, err = vm.Command(name, args...)
	}
	fmt.Print(out)
	if out != "" && !strings.HasSuffix(out, "\n") {
		fmt.Println()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "orca-attach:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "orca-attach: result code %d\n", code)
	if code != 0 {
		os.Exit(1)
	}
}
