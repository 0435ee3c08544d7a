package demo;

import java.util.List;

public class Names {
    static List<String> names() {
        return List.of("a", "b");
    }
}
