package jfrimport

import _ "embed"

// JFC is the JFR settings file that records what the import converts (each
// event at a 0 ms threshold, with stack traces): built into orca, so that
// a user without the source tree can record with it (orca import --jfc).
//
//go:embed orca.jfc
var JFC []byte
