package demo;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Situation fixture (engine/situations_test.go): "var" locals whose type JDT
 * LS infers from a lambda, a method reference or a lambda parameter. The
 * engine treats receivers that use them as it treats lambda parameters
 * (unknown). Each marker is a caret; the text after it on its line must
 * never be pruned.
 */
class SitVar {
    void run(List<String> names, Map<String, List<Integer>> m) {
        var upper = names.stream().map(String::toUpperCase).collect(Collectors.toList());
        System.out.println(upper./*^*/size() + upper./*^*/get(0).length());
        var first = names.stream().filter(n -> n.startsWith("a")).findFirst();
        System.out.println(first./*^*/isPresent());
        Supplier<String> sup = () -> "s";
        var fromSupplier = Optional.of(sup).map(Supplier::get).orElse("");
        System.out.println(fromSupplier./*^*/trim());
        names.forEach(n -> {
            var copy = n;
            var len = copy./*^*/length();
            System.out.println(copy./*^*/strip() + len);
        });
        m.forEach((k, v) -> {
            var total = v.stream().mapToInt(Integer::intValue).sum();
            var key = k;
            System.out.println(key./*^*/length() + total);
        });
        Function<String, Integer> f = s -> {
            var t = s.trim();
            return t./*^*/length();
        };
        for (var e : m.entrySet()) {
            System.out.println(e./*^*/getKey() + f.apply(e.getKey()));
        }
    }
}
