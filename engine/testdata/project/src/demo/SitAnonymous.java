package demo;

/** Situation fixture: anonymous class instances, and code inside their bodies. */
class SitAnonymous {
    Runnable run(String s) {
        Object o = new Object() { int twice() { return 2; } }./*^*/twice();
        Runnable r = new Runnable() {
            int count;

            public void run() {
                System.out.println(s./*^*/length() + /*^*/count + this./*^*/count + o./*^*/hashCode());
            }
        };
        return r;
    }
}
