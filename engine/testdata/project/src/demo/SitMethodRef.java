package demo;

import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/** Situation fixture: member access after method references in a call chain. */
class SitMethodRef {
    int run(List<String> names) {
        int a = names.stream().map(String::trim)./*^*/filter(s -> !s.isEmpty()).mapToInt(String::length).sum();
        Optional<Integer> o = names.stream().map(String::length)./*^*/reduce(Integer::sum);
        return a + o.orElse(0) + names.stream().map(String::length).collect(Collectors.toList())./*^*/size();
    }
}
