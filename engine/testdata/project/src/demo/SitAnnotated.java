package demo;

import java.lang.annotation.ElementType;
import java.lang.annotation.Target;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Situation fixture: a name right after a name where Java allows one in a
 * call's arguments or an index: a type after a type annotation (JLS 9.7.4)
 * in a class instance creation, an array creation, type arguments, a cast
 * and a pattern; and the keyword instanceof after an operand, which a
 * tokenizer may cut into pieces that are names ("o inst").
 */
class SitAnnotated {
    @Target(ElementType.TYPE_USE)
    @interface N { }

    class Inner { }

    static class Nested { }

    <T> T id(T t) {
        return t;
    }

    <T> List<T> listOf(T t) {
        List<T> l = new ArrayList<>();
        l.add(/*^*/this.<T>id(t));
        l.add(id(/*^*/this.<@N T>id(t)));
        return /*^*/Collections.<T>singletonList(this.<T>id(t)).size() > 1 ? l : Collections.<@N T>emptyList();
    }

    int run(Object o, SitAnnotated a, int[] arr) {
        String s = String.valueOf(/*^*/new @N Object());
        Object n = id(/*^*/new @N SitAnnotated.Inner());
        Object q = id(/*^*/new SitAnnotated.@N Nested());
        Object i = id(a./*^*/new @N Inner());
        List<String> l = id(/*^*/new @N ArrayList<@N String>());
        Object[] objs = id(/*^*/new @N Object @N [2]);
        String c = id((/*^*/@N String) o);
        List<String> e = id(/*^*/this.<@N String>id(null) == null ? Collections.<@N String>emptyList() : l);
        int x = arr[/*^*/listOf(c).size()];
        // Last: after an instanceof no simple name of the file is judged.
        boolean b = id(/*^*/o instanceof @N String);
        return s.length() + x + e.size() + objs.length + (b ? 1 : 0) + c.length() + n.hashCode() + q.hashCode() + i.hashCode();
    }
}
