package org.example.editor;

import java.util.Arrays;
import java.util.NoSuchElementException;

/** The editor's undo history: a growable stack of edits, newest on top. */
public class UndoStack<T> {
    private Object[] items = new Object[4];
    private int size;

    public void push(T edit) {
        if (size == items.length) {
            items = Arrays.copyOf(items, size * 2);
        }
        items[size++] = edit;
    }

    @SuppressWarnings("unchecked")
    public T pop() {
        if (size == 0) {
            throw new NoSuchElementException("nothing to undo");
        }
        T top = (T) items[--size];
        items[size] = null;
        size--;
        return top;
    }

    @SuppressWarnings("unchecked")
    public T peek() {
        if (size == 0) {
            throw new NoSuchElementException("nothing to undo");
        }
        return (T) items[size - 1];
    }

    public int size() {
        return size;
    }

    public boolean isEmpty() {
        return size == 0;
    }
}
