/**
 * The layout command line, {@code bin/ofinet-layout}: the active rail layout, where each value came
 * from, and what libfabric offers for each rail. It chooses the libfabric binding's discovery, as the
 * plugin does.
 */
package io.ofinet.tools.layout;
