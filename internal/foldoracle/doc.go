// Package foldoracle holds the oracle of issue 34's new fold, a test that
// model.Build's new path and its old one make the same model and the same
// report on every recording the tests have (oracle_test.go;
// docs/streaming.md, "How the new fold can land"). It has no code of its
// own: a package apart so that its minutes of builds have their own test
// binary and time limit.
package foldoracle
