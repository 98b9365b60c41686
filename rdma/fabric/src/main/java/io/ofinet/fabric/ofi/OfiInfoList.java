package io.ofinet.fabric.ofi;

import com.sun.jna.Pointer;
import io.ofinet.fabric.FabricInfo;
import io.ofinet.fabric.InfoList;
import java.util.Collections;
import java.util.List;

/** The fi_info list of one fi_getinfo call; fi_freeinfo on close. */
final class OfiInfoList implements InfoList {
    private final List<FabricInfo> infos;
    private long head;

    OfiInfoList(long head, List<FabricInfo> infos) {
        this.head = head;
        this.infos = Collections.unmodifiableList(infos);
    }

    @Override
    public List<FabricInfo> infos() {
        return infos;
    }

    synchronized void requireOpen() {
        if (head == 0 && !infos.isEmpty()) {
            throw new IllegalStateException("the fi_getinfo list was closed; open the fabric before closing it");
        }
    }

    @Override
    public synchronized void close() {
        if (head != 0) {
            OfiLibrary.lib().fi_freeinfo(new Pointer(head));
            head = 0;
        }
    }
}
