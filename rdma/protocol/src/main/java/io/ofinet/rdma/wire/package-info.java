/**
 * The wire formats: listen handle, handshake messages, announcements and immediate data,
 * described in docs/PROTOCOL.md. Every decoder validates what it reads; what a peer sends never
 * becomes an array index or a length without a check.
 */
package io.ofinet.rdma.wire;
