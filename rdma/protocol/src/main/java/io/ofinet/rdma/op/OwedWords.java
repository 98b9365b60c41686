package io.ofinet.rdma.op;

/**
 * Zero-byte messages owed to a peer, by the word each carries, oldest first: those that found no
 * operation free, or that the provider failed. Sent as far as operations are free; a word whose
 * post fails at once is owed again behind those of the pass that sent it. Touched only with the
 * endpoint held.
 */
public final class OwedWords {
    /** Posts one owed word; false when no operation is free. */
    public interface Sender {
        boolean send(int word);
    }

    private final int[] words;
    private int count;

    /** @param capacity how many words may be owed at once */
    public OwedWords(int capacity) {
        this.words = new int[capacity];
    }

    /** Owes {@code word}; false when {@code capacity} are owed already. */
    public boolean add(int word) {
        if (count == words.length) {
            return false;
        }
        words[count++] = word;
        return true;
    }

    /** How many words are owed. */
    public int count() {
        return count;
    }

    /** Sends the words owed when it begins, oldest first, as far as {@code sender} can; returns whether none is left. */
    public boolean sendAll(Sender sender) {
        int owed = count;
        int sent = 0;
        while (sent < owed && sender.send(words[sent])) {
            sent++;
        }
        if (sent > 0) {
            System.arraycopy(words, sent, words, 0, count - sent);
            count -= sent;
        }
        return count == 0;
    }
}
