// The second version of SampleStorm's SampleStormHot (testdata/java/scenarios/SampleStorm.java):
// the same methods and fields, other bodies, so that a redefinition between the two makes the
// frames of the first obsolete (not equivalent) and deoptimises the code that inlined them.
// TestSampleStress compiles it on its own and hands its class file to SampleStorm.
class SampleStormHot {
    long salt = 0x2545F4914F6CDD1DL;

    static long mix(long x) {
        return (x ^ (x >>> 31)) * 0x94D049BB133111EBL + 1;
    }

    static long fold(long x, int n) {
        for (int i = 0; i < n; i++) x = mix(x) + (x << 3);
        return x;
    }

    long step(long x) {
        return mix(x ^ salt) - 7;
    }
}
