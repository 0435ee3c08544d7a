package org.example.text;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Counts words in a text, ignoring case and punctuation, and lists the most frequent. */
public class WordFrequency {
    private final Map<String, Integer> counts = new HashMap<>();
    private int total;

    public void addText(String text) {
        for (String raw : text.split("[^\\p{L}\\p{Nd}']+")) {
            String word = raw.toLowerCase(Locale.ROOT);
            if (word.isEmpty()) {
                continue;
            }
            counts.put(word, counts.get(word, 0) + 1);
            total++;
        }
    }

    public int count(String word) {
        return counts.getOrDefault(word.toLowerCase(Locale.ROOT), 0);
    }

    public int totalWords() {
        return total;
    }

    /** The n most frequent words, most frequent first; ties in alphabetical order. */
    public List<String> top(int n) {
        List<String> words = new ArrayList<>(counts.keySet());
        words.sort((a, b) -> {
            int byCount = Integer.compare(counts.get(b), counts.get(a));
            return byCount != 0 ? byCount : a.compareTo(b);
        });
        return words.subList(0, Math.min(n, words.size()));
    }
}
