/**
 * The libfabric binding: the only package that touches native code. Setup-path calls go
 * through JNA; data-path calls (posts and completion-queue reads) go through one seam, {@link
 * io.ofinet.fabric.ofi.DataPath}, implemented with JNA on Java 17 and with Java's FFM API on JDK
 * 22+ (a multi-release jar). libfabric's data-path functions are {@code static inline} wrappers
 * over function-pointer tables inside its objects; this package reads those tables through
 * offsets pinned against the 1.17 headers by tests.
 */
package io.ofinet.fabric.ofi;
