package demo;

import java.util.List;

/**
 * Situation fixture: a compile error earlier in the same statement (this
 * file does not compile on purpose: a buggy hunk is where errors sit).
 */
class SitError {
    void run(String s, List<String> l) {
        int n = s.length( + s./*^*/length();
        int m = 1 2 + s./*^*/length();
        String t = undefined(s) + s./*^*/trim();
        String u = s.substring(s.indexOf(",", ) + l./*^*/get(0);
        String w = (s + ) + l./*^*/get(0)./*^*/trim();
    }
}
