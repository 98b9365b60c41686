/**
 * Integration tests over real libfabric providers, a small collective engine that compiles
 * against the plugin API only, and the {@code ofinet-perf} tool.
 */
package io.ofinet.it;
