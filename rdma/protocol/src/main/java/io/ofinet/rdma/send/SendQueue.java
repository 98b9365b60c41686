package io.ofinet.rdma.send;

import java.util.Arrays;

/**
 * A send communicator's queued sends in posting order, of which any may leave: an array that
 * never allocates after it is made. Touched only with the endpoint held.
 */
final class SendQueue {
    private final SendRequest[] items;
    private int size;

    SendQueue(int capacity) {
        items = new SendRequest[capacity];
    }

    int size() {
        return size;
    }

    SendRequest at(int q) {
        return items[q];
    }

    /** Adds {@code request} last; the communicator never has more sends outstanding than the capacity. */
    void add(SendRequest request) {
        items[size++] = request;
    }

    /** Takes out the send at {@code q}; those after it move up. */
    void removeAt(int q) {
        System.arraycopy(items, q + 1, items, q, size - q - 1);
        items[--size] = null;
    }

    void clear() {
        Arrays.fill(items, 0, size, null);
        size = 0;
    }
}
