package io.ofinet.nccl;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A door's log that keeps its WARN and INFO lines, from any thread; TRACE is dropped. */
final class RecordingLog implements NcclDoor.Log {
    final List<String> warnings = new CopyOnWriteArrayList<>();
    final List<String> infos = new CopyOnWriteArrayList<>();
    /** Runs at each WARN, after it is kept: what other threads do while the door logs. */
    volatile Runnable atWarn = () -> { };

    @Override
    public void warn(String message) {
        warnings.add(message);
        atWarn.run();
    }

    @Override
    public void info(String message) {
        infos.add(message);
    }

    @Override
    public void trace(String message) {
    }
}
