/**
 * The NetPlugin implementation over ofinet's RDMA protocol,
 * registered for {@link java.util.ServiceLoader}.
 */
package io.ofinet.plugin.ofi;
