package demo;

/** Situation fixture: variables bound by patterns in the same statement. */
class SitPattern {
    int run(Object o) {
        if (o instanceof String str && /*^*/str./*^*/length() > 2) {
            return /*^*/str.length();
        }
        return o instanceof CharSequence cs ? /*^*/cs./*^*/length() : 0;
    }
}
