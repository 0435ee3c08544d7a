package demo;

import java.util.List;
import java.util.Map;

public class Counts {
    static int parse(String s) {
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    static int count(List<String> items) {
        int n = 0;
        for (String item : items) n++;
        return n;
    }

    static int total(Map<String, Integer> m) {
        int[] sum = {0};
        m.forEach((k, v) -> sum[0] += v);
        return sum[0];
    }
}
