package org.example.editor;

/** Checks UndoStack; exits with status 1 when a check fails. */
public class UndoStackTest {
    private static int failures;

    private static void check(String name, boolean ok) {
        System.out.println((ok ? "ok   " : "FAIL ") + name);
        if (!ok) {
            failures++;
        }
    }

    public static void main(String[] args) {
        UndoStack<String> undo = new UndoStack<>();
        check("starts empty", undo.isEmpty());
        for (String edit : new String[] {"type a", "type b", "delete", "paste", "indent", "type c"}) {
            undo.push(edit);
        }
        check("grows past its initial capacity", undo.size() == 6);
        check("pop returns newest", undo.pop().equals("type c"));
        check("size after pop", undo.size() == 5);
        check("peek after pop", undo.peek().equals("indent"));
        check("pops in reverse order", undo.pop().equals("indent") && undo.pop().equals("paste"));
        undo.push("cut");
        check("push after pop", undo.peek().equals("cut") && undo.size() == 4);
        while (!undo.isEmpty()) {
            undo.pop();
        }
        boolean threw = false;
        try {
            undo.pop();
        } catch (java.util.NoSuchElementException e) {
            threw = true;
        }
        check("pop on empty throws", threw);
        if (failures > 0) {
            System.out.println(failures + " check(s) failed");
            System.exit(1);
        }
        System.out.println("all checks passed");
    }
}
