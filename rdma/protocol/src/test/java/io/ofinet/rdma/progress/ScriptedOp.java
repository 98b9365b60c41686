package io.ofinet.rdma.progress;

import io.ofinet.fabric.Endpoint;
import io.ofinet.fabric.FabricException;
import io.ofinet.fabric.FiErrno;
import io.ofinet.rdma.error.RdmaException;
import java.util.List;

/** An operation that records what happens to it; posts answer from a script. */
final class ScriptedOp extends Operation {
    final String name;
    final List<String> log;
    int[] answers;
    int posts;
    /** Completions its post puts on the wire: two for a write with its notice behind it. */
    int awaited = 1;

    ScriptedOp(String name, List<String> log, int... answers) {
        this.name = name;
        this.log = log;
        this.answers = answers;
    }

    @Override
    protected int post() throws FabricException {
        int answer = answers[Math.min(posts++, answers.length - 1)];
        log.add("post " + name + (answer == Endpoint.AGAIN ? " again" : ""));
        if (answer == -FiErrno.FI_EIO) {
            throw new FabricException("fi_send (provider mock)", FiErrno.FI_EIO, "I/O error");
        }
        return answer;
    }

    @Override
    protected int completionsAwaited() {
        return awaited;
    }

    @Override
    protected void completed(int rail, long flags, long len, long data) {
        awaited = Math.max(1, awaited - 1);
        log.add("done " + name + " rail " + rail + " len " + len);
    }

    @Override
    protected void failed(RdmaException cause) {
        log.add("failed " + name + ": " + cause.getMessage());
    }

    @Override
    protected String describe() {
        return name;
    }
}
