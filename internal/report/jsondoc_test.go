package report

import (
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// TestJSONFieldsDocumented: every field orca report --json can emit (a json tag of Report
// and of every struct it holds) is named in docs/report-json.md, as `name` or "name". The
// bounded recording's object (bounded: max_size_bytes, chunks_kept, recorded_s, ...) was
// emitted with no word of it there.
func TestJSONFieldsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/report-json.md")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[reflect.Type]bool{}
	missing := map[string][]string{}
	var walk func(ty reflect.Type, path string)
	walk = func(ty reflect.Type, path string) {
		for ty.Kind() == reflect.Pointer || ty.Kind() == reflect.Slice || ty.Kind() == reflect.Array || ty.Kind() == reflect.Map {
			ty = ty.Elem()
		}
		if ty.Kind() != reflect.Struct || seen[ty] {
			return
		}
		seen[ty] = true
		for i := range ty.NumField() {
			f := ty.Field(i)
			if !f.IsExported() {
				continue
			}
			tag := f.Tag.Get("json")
			name, _, _ := strings.Cut(tag, ",")
			if name == "-" {
				continue
			}
			if tag == "" {
				if f.Anonymous {
					walk(f.Type, path)
				}
				continue
			}
			if !strings.Contains(string(doc), "`"+name+"`") && !strings.Contains(string(doc), `"`+name+`"`) {
				missing[name] = append(missing[name], path+"."+name)
			}
			walk(f.Type, path+"."+name)
		}
	}
	walk(reflect.TypeOf(Report{}), "")
	var names []string
	for n := range missing {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t.Errorf("docs/report-json.md does not name the JSON field %s (%s)", n, strings.Join(missing[n], ", "))
	}
}
