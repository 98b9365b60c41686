package io.ofinet.config;

/**
 * Whether a send of at least {@code eagerHeadMinSize} that finds no announcement of its receive
 * sends its first {@code eagerMaxSize} bytes at once, in an eager message ahead of the writes of
 * the rest (docs/PROTOCOL.md, "Heads").
 *
 * <p>{@link #AUTO}: on where every data rail is {@code tcp}, where it measured faster (the data
 * moves while the announcement travels), off elsewhere (on {@code shm} an engine-level head
 * made the allreduce a third slower). {@link #ON}, {@link #OFF}: on or off everywhere.
 */
public enum EagerHead {
    AUTO,
    ON,
    OFF
}
