package reader

import "orca/internal/format"

// ClassObject returns, for an object of class java.lang.Class (class, its
// signature "Ljava/lang/Class;"), the class it is ("LFoo;"), as the
// recording's class table names it: a class's id there is the identity
// hash of its Class object, the id the agent names the object by. It is ""
// for any other object, or a class the table lacks. A synchronized static
// method's lock is such an object (HotKey.java: "monitor java.lang.Class
// 7EE8290B (HotKey.class)"); orca report, orca view and the exports name
// it from here.
func ClassObject(classes map[format.ClassID]*Class, obj format.ObjectID, class string) string {
	if class != "Ljava/lang/Class;" {
		return ""
	}
	if c := classes[format.ClassID(obj)]; c != nil {
		return c.Signature
	}
	return ""
}
