package format

import "strings"

// JavaName turns a class signature (the ObjectClass and .classtable form)
// into the name a Java programmer reads: "Ljava/lang/Object;" →
// "java.lang.Object", "[I" → "int[]", "[[Ljava/lang/String;" →
// "java.lang.String[][]". Hidden classes come with a '.' before their
// suffix ("LFoo$$Lambda.0x1234;"), which Class.getName shows as '/'
// ("Foo$$Lambda/0x1234"), so the two are swapped rather than only
// '/' → '.'. Text that is not a signature is returned with '/' → '.'; a
// native pseudo-class (NativeClassPrefix) as it is.
func JavaName(sig string) string {
	if IsNativeClass(sig) {
		return sig // "<native:libjvm.so>": a library, not a class
	}
	dims := 0
	for dims < len(sig) && sig[dims] == '[' {
		dims++
	}
	elem := sig[dims:]
	if dims > 0 && len(elem) == 1 {
		if p, ok := primitives[elem[0]]; ok {
			return p + strings.Repeat("[]", dims)
		}
	}
	if len(elem) >= 2 && elem[0] == 'L' && elem[len(elem)-1] == ';' {
		elem = elem[1 : len(elem)-1]
	} else if dims > 0 {
		return strings.ReplaceAll(sig, "/", ".") // not a signature: as it is
	}
	return strings.Map(func(c rune) rune {
		switch c {
		case '/':
			return '.'
		case '.':
			return '/'
		}
		return c
	}, elem) + strings.Repeat("[]", dims)
}

var primitives = map[byte]string{
	'Z': "boolean", 'B': "byte", 'C': "char", 'S': "short", 'I': "int", 'J': "long", 'F': "float", 'D': "double",
}
