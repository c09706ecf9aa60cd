package integration

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"orca/internal/model"
	"orca/internal/reader"
	"orca/internal/web"
)

// TestViewThreadFilterSpilled: the viewer's answers filtered by thread (?thread=, which
// aggregates the threads it keeps again: Model.Filter) on recordings of real JVMs with
// java.util.concurrent contention and hand-offs (HandOff.java: a ReentrantLock handed from
// holder to waiter; Convoy.java: a fair Semaphore and a fair ReentrantLock queued behind), built
// as orca view builds them (web.ModelOptions: the fold's hand-offs, owner changes and intervals
// given up to the spill, sealed after every event so that each goes there), are the answers of
// the model built in memory, byte for byte, and every one is 200. The filtered aggregation once
// read a spilled hand-off with no spill and panicked (c9f7c594): on ActiveMQ and Tomcat
// recordings /api/summary, /api/locks and /api/groups with ?thread= got no answer.
func TestViewThreadFilterSpilled(t *testing.T) {
	forEachJDK(t, func(t *testing.T, j jdk) {
		for _, prog := range []struct {
			main    string
			threads []string // thread-name filters, each matching some of the program's threads
		}{
			{"HandOff", []string{"waiter-", "holder"}},
			{"Convoy", []string{"lockQ-", "semQ-", "lockHolder"}},
		} {
			t.Run(prog.main, func(t *testing.T) {
				_, prefix := recordExpect(t, j, prog.main)
				defer model.SetSealEveryEvent()()
				rec, mem := buildModel(t, prefix)
				rec2, err := reader.Open(prefix)
				if err != nil {
					t.Fatal(err)
				}
				spilled, err := model.Build(rec2, web.ModelOptions(rec2))
				if err != nil {
					t.Fatalf("built as orca view builds it: %v", err)
				}
				if !spilled.Model.Spilled() {
					t.Fatalf("the model orca view builds has no spill: the test compares nothing spilled")
				}
				a := httptest.NewServer(web.New(rec, mem, web.Options{}))
				defer a.Close()
				b := httptest.NewServer(web.New(rec2, spilled, web.Options{}))
				defer b.Close()
				listed := 0
				for _, name := range prog.threads {
					q := "?thread=" + url.QueryEscape(name)
					for _, api := range []string{"/api/summary", "/api/locks", "/api/groups", "/api/flame", "/api/threads"} {
						inMem, code := viewGet(t, a.URL+api+q)
						got, code2 := viewGet(t, b.URL+api+q)
						if code != http.StatusOK || code2 != http.StatusOK {
							t.Errorf("%s%s: status %d in memory, %d spilled; want 200:\n%.300s\n%.300s", api, q, code, code2, inMem, got)
							continue
						}
						if got != inMem {
							i := 0
							for i < min(len(got), len(inMem)) && got[i] == inMem[i] {
								i++
							}
							i = max(i-100, 0)
							t.Errorf("%s%s differs with the model spilled, at byte %d:\nin memory: %.300q\nspilled:   %.300q", api, q, i, inMem[i:], got[i:])
						}
						if api == "/api/locks" && strings.Contains(got, `"kind":"juc"`) {
							listed++
						}
					}
				}
				if listed == 0 {
					t.Errorf("no thread filter's /api/locks lists a java.util.concurrent lock: the filters compare no contention on one")
				}
			})
		}
	})
}

// viewGet returns a GET's body and status.
func viewGet(t *testing.T, u string) (string, int) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	return string(body), resp.StatusCode
}
