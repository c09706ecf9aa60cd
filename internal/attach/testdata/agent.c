/* The attach tests' JVMTI agent: Agent_OnAttach writes its options string to OUT_FILE and
 * returns RESULT; both are given with -D when the test compiles it. */
#include <stdio.h>
#include <string.h>
#include <jni.h>

JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM *vm, char *options, void *reserved) {
    (void)vm;
    (void)reserved;
    FILE *f = fopen(OUT_FILE, "w");
    if (f == NULL) {
        return 99;
    }
    if (options != NULL) {
        fwrite(options, 1, strlen(options), f);
    }
    fclose(f);
    return RESULT;
}
