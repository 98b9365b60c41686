/** The ofinet-perf command-line tool: nccl-tests-style tables over the NetPlugin API. */
package io.ofinet.tools.perf;
