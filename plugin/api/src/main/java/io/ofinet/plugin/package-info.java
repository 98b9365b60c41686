/**
 * The NCCL-style network plugin API that collective frameworks compile against. It has no
 * dependencies; implementations are found with {@link java.util.ServiceLoader}.
 */
package io.ofinet.plugin;
