package demo;

import java.util.ArrayList;
import java.util.List;

/** Keeps names in a List<String>: receivers of generic library types. */
public class Names {
    private final List<String> names = new ArrayList<>();

    public void add(String n) {
        names.add(n);
    }

    public int count() {
        return names.size();
    }
}
