package demo;

import static java.lang.Math.max;
import static java.util.Collections.*;

import java.util.List;

/**
 * Situation fixture: forms Java allows after a dot or at a simple name that a
 * naive judge would prune: static imports, .class, .this, .new, .super,
 * explicit type arguments, qualified type names, array length, varargs.
 */
class SitForms {
    class Inner { }

    int f;

    int run(String... parts) {
        int a = /*^*/max(1, parts./*^*/length);
        List<String> e = /*^*/emptyList();
        Class<?> c = SitForms./*^*/class;
        SitForms self = SitForms./*^*/this;
        Inner in = this./*^*/new Inner();
        String s = SitForms.this./*^*/toString() + super./*^*/hashCode();
        java.util./*^*/List<java.util./*^*/Map<String, Integer>> l = null;
        List<String> t = java.util.Collections./*^*/<String>emptyList();
        String j = String./*^*/join(",", parts);
        int[] arr = new int[/*^*/a];
        return arr./*^*/length + parts./*^*/length + /*^*/f + this./*^*/f + (/*^*/a > 0 ? 1 : 0);
    }

    void v(String/*^*/... xs) { }
}
