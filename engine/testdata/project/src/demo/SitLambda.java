package demo;

import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * Situation fixture (engine/situations_test.go): receivers that are lambda
 * parameters whose types come from inference. Each marker is a caret; the
 * text after it on its line must never be pruned.
 */
class SitLambda {
    void run(List<String> names, Map<String, List<Integer>> m) {
        names.forEach(n -> System.out.println(n./*^*/trim().length()));
        names.stream().map(n -> n./*^*/toUpperCase()).forEach(System.out::println);
        m.forEach((k, v) -> v./*^*/add(k./*^*/length()));
        Function<String, Integer> f = x -> x./*^*/length();
        BiFunction<String, Integer, Character> g = (a, b) -> a./*^*/charAt(b);
        names.removeIf(n -> n./*^*/isEmpty());
        Comparator<String> c = (p, q) -> p./*^*/compareTo(q);
        long sorted = names.stream().sorted(Comparator.comparing(s -> s./*^*/length())).count();
        Map<Integer, List<String>> by = names.stream().collect(Collectors.groupingBy(w -> w./*^*/length()));
        CompletableFuture<Integer> cf = CompletableFuture.supplyAsync(() -> "x").thenApply(r -> r./*^*/length());
        String o = Optional.of("s").map(v -> v./*^*/trim()).orElse("");
        names.forEach(n -> {
            int len = n./*^*/length();
            System.out.println(/*^*/len + n./*^*/strip());
        });
    }
}
