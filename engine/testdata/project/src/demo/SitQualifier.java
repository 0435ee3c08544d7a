package demo;

import static java.lang.System.out;
import static java.util.Map.Entry;

import java.util.ArrayList;
import java.util.function.Function;

/**
 * Situation fixture: simple names followed by "." (variables, types and
 * packages start qualified names) and by "(" (a method may share a type's
 * name): session.go's checkQualifier and typeCalled must prune none of them.
 */
class SitQualifier extends ArrayList<String> {
    static class Base { protected String inherited = "b"; static int count() { return 1; } }

    class Sub extends Base {
        int run(Object o, String[] parts) {
            String local = "x";
            int n = /*^*/local./*^*/length() + /*^*/inherited.length() + /*^*/modCount;
            /*^*/out.println(/*^*/local);
            /*^*/Entry<String, String> e = null;
            Function<String, Integer> f = x -> /*^*/x./*^*/length();
            if (o instanceof String str) {
                n += /*^*/str.length();
            }
            n += /*^*/Base.count() + /*^*/java.util.List.of().size() + /*^*/demo.Greeter.of("a").greet().length();
            n += /*^*/Greeter.Tone.LOUD.ordinal() + /*^*/Sub(/*^*/n) + /*^*/parts.length + /*^*/field.length();
            /*^*/Sub(2);
            for (int i = 0; i < /*^*/parts.length; i++) { n += /*^*/Math.abs(i); }
            return n + /*^*/String.valueOf(/*^*/e).length() + /*^*/f.apply("y");
        }

        /** A method named like its class: legal, if unusual. */
        int Sub(int k) { return k; }
    }

    String field = "f";
}
