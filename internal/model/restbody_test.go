package model

import (
	"fmt"
	"os"
	"reflect"
	"testing"
)

// TestMain runs the package's tests, then checks that none wrote the body
// every retired thread shares (restBody): a write there, which was a nil
// dereference when a retired thread had no body, would be every retired
// thread's.
func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 && !reflect.ValueOf(restBody).IsZero() {
		fmt.Fprintf(os.Stderr, "a retired thread's body (restBody) was written: %+v\n", restBody)
		code = 1
	}
	os.Exit(code)
}
