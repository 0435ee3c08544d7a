package demo;

/**
 * Situation fixture: the keyword instanceof right after a call's ")", which
 * a tokenizer may cut into pieces that are names ("f(o) inst"). It is the
 * first instanceof of its block: after one, simple names in that block are
 * not judged.
 */
class SitInstanceof {
    Object id(Object o) {
        return o;
    }

    int run(Object o, int[] arr) {
        int x = arr[/*^*/id(o) instanceof String ? 1 : 0];
        return x;
    }
}
