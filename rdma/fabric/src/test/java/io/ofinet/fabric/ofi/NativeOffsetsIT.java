package io.ofinet.fabric.ofi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.ofinet.fabric.Fi;
import io.ofinet.fabric.FiErrno;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pins every native offset, size and constant the binding uses against the installed libfabric
 * headers: a C program printing {@code offsetof}, {@code sizeof} and the constants is compiled
 * with gcc against libfabric-dev and its output compared with the Java values. It fails, never
 * skips, when gcc or the headers are missing: CI installs both.
 */
class NativeOffsetsIT {
    /** NativeOffsets constant -> the C expression it must equal. */
    private static final String[][] LAYOUT = {
            {"INFO_NEXT", "offsetof(struct fi_info, next)"},
            {"INFO_CAPS", "offsetof(struct fi_info, caps)"},
            {"INFO_MODE", "offsetof(struct fi_info, mode)"},
            {"INFO_ADDR_FORMAT", "offsetof(struct fi_info, addr_format)"},
            {"INFO_SRC_ADDRLEN", "offsetof(struct fi_info, src_addrlen)"},
            {"INFO_SRC_ADDR", "offsetof(struct fi_info, src_addr)"},
            {"INFO_TX_ATTR", "offsetof(struct fi_info, tx_attr)"},
            {"INFO_RX_ATTR", "offsetof(struct fi_info, rx_attr)"},
            {"INFO_EP_ATTR", "offsetof(struct fi_info, ep_attr)"},
            {"INFO_DOMAIN_ATTR", "offsetof(struct fi_info, domain_attr)"},
            {"INFO_FABRIC_ATTR", "offsetof(struct fi_info, fabric_attr)"},
            {"INFO_NIC", "offsetof(struct fi_info, nic)"},
            {"INFO_SIZE", "sizeof(struct fi_info)"},
            {"TX_CAPS", "offsetof(struct fi_tx_attr, caps)"},
            {"TX_MSG_ORDER", "offsetof(struct fi_tx_attr, msg_order)"},
            {"TX_INJECT_SIZE", "offsetof(struct fi_tx_attr, inject_size)"},
            {"TX_SIZE", "offsetof(struct fi_tx_attr, size)"},
            {"TX_ATTR_SIZE", "sizeof(struct fi_tx_attr)"},
            {"RX_CAPS", "offsetof(struct fi_rx_attr, caps)"},
            {"RX_SIZE", "offsetof(struct fi_rx_attr, size)"},
            {"RX_ATTR_SIZE", "sizeof(struct fi_rx_attr)"},
            {"EP_TYPE", "offsetof(struct fi_ep_attr, type)"},
            {"EP_MAX_MSG_SIZE", "offsetof(struct fi_ep_attr, max_msg_size)"},
            {"EP_ATTR_SIZE", "sizeof(struct fi_ep_attr)"},
            {"DOMAIN_NAME", "offsetof(struct fi_domain_attr, name)"},
            {"DOMAIN_THREADING", "offsetof(struct fi_domain_attr, threading)"},
            {"DOMAIN_CONTROL_PROGRESS", "offsetof(struct fi_domain_attr, control_progress)"},
            {"DOMAIN_DATA_PROGRESS", "offsetof(struct fi_domain_attr, data_progress)"},
            {"DOMAIN_MR_MODE", "offsetof(struct fi_domain_attr, mr_mode)"},
            {"DOMAIN_MR_KEY_SIZE", "offsetof(struct fi_domain_attr, mr_key_size)"},
            {"DOMAIN_CQ_DATA_SIZE", "offsetof(struct fi_domain_attr, cq_data_size)"},
            {"DOMAIN_ATTR_SIZE", "sizeof(struct fi_domain_attr)"},
            {"FABRIC_NAME", "offsetof(struct fi_fabric_attr, name)"},
            {"FABRIC_PROV_NAME", "offsetof(struct fi_fabric_attr, prov_name)"},
            {"FABRIC_API_VERSION", "offsetof(struct fi_fabric_attr, api_version)"},
            {"FABRIC_ATTR_SIZE", "sizeof(struct fi_fabric_attr)"},
            {"NIC_DEVICE_ATTR", "offsetof(struct fid_nic, device_attr)"},
            {"NIC_BUS_ATTR", "offsetof(struct fid_nic, bus_attr)"},
            {"NIC_LINK_ATTR", "offsetof(struct fid_nic, link_attr)"},
            {"DEVICE_NAME", "offsetof(struct fi_device_attr, name)"},
            {"BUS_TYPE", "offsetof(struct fi_bus_attr, bus_type)"},
            {"BUS_PCI", "offsetof(struct fi_bus_attr, attr.pci)"},
            {"PCI_DOMAIN_ID", "offsetof(struct fi_pci_attr, domain_id)"},
            {"PCI_BUS_ID", "offsetof(struct fi_pci_attr, bus_id)"},
            {"PCI_DEVICE_ID", "offsetof(struct fi_pci_attr, device_id)"},
            {"PCI_FUNCTION_ID", "offsetof(struct fi_pci_attr, function_id)"},
            {"LINK_MTU", "offsetof(struct fi_link_attr, mtu)"},
            {"LINK_SPEED", "offsetof(struct fi_link_attr, speed)"},
            {"BUS_TYPE_PCI", "FI_BUS_PCI"},
            {"FID_OPS", "offsetof(struct fid, ops)"},
            {"FI_OPS_CLOSE", "offsetof(struct fi_ops, close)"},
            {"FI_OPS_BIND", "offsetof(struct fi_ops, bind)"},
            {"FI_OPS_CONTROL", "offsetof(struct fi_ops, control)"},
            {"FABRIC_OPS", "offsetof(struct fid_fabric, ops)"},
            {"OPS_FABRIC_DOMAIN", "offsetof(struct fi_ops_fabric, domain)"},
            {"DOMAIN_OPS", "offsetof(struct fid_domain, ops)"},
            {"DOMAIN_MR", "offsetof(struct fid_domain, mr)"},
            {"OPS_DOMAIN_AV_OPEN", "offsetof(struct fi_ops_domain, av_open)"},
            {"OPS_DOMAIN_CQ_OPEN", "offsetof(struct fi_ops_domain, cq_open)"},
            {"OPS_DOMAIN_ENDPOINT", "offsetof(struct fi_ops_domain, endpoint)"},
            {"OPS_MR_REGATTR", "offsetof(struct fi_ops_mr, regattr)"},
            {"MR_MEM_DESC", "offsetof(struct fid_mr, mem_desc)"},
            {"MR_KEY", "offsetof(struct fid_mr, key)"},
            {"MR_ATTR_IOV", "offsetof(struct fi_mr_attr, mr_iov)"},
            {"MR_ATTR_IOV_COUNT", "offsetof(struct fi_mr_attr, iov_count)"},
            {"MR_ATTR_ACCESS", "offsetof(struct fi_mr_attr, access)"},
            {"MR_ATTR_OFFSET", "offsetof(struct fi_mr_attr, offset)"},
            {"MR_ATTR_REQUESTED_KEY", "offsetof(struct fi_mr_attr, requested_key)"},
            {"MR_ATTR_IFACE", "offsetof(struct fi_mr_attr, iface)"},
            {"MR_ATTR_SIZE", "sizeof(struct fi_mr_attr)"},
            {"EP_OPS", "offsetof(struct fid_ep, ops)"},
            {"EP_CM", "offsetof(struct fid_ep, cm)"},
            {"EP_MSG", "offsetof(struct fid_ep, msg)"},
            {"EP_RMA", "offsetof(struct fid_ep, rma)"},
            {"EP_TAGGED", "offsetof(struct fid_ep, tagged)"},
            {"OPS_EP_CANCEL", "offsetof(struct fi_ops_ep, cancel)"},
            {"OPS_CM_GETNAME", "offsetof(struct fi_ops_cm, getname)"},
            {"OPS_MSG_RECV", "offsetof(struct fi_ops_msg, recv)"},
            {"OPS_MSG_RECVMSG", "offsetof(struct fi_ops_msg, recvmsg)"},
            {"OPS_MSG_SEND", "offsetof(struct fi_ops_msg, send)"},
            {"OPS_MSG_SENDMSG", "offsetof(struct fi_ops_msg, sendmsg)"},
            {"OPS_MSG_SENDDATA", "offsetof(struct fi_ops_msg, senddata)"},
            {"OPS_RMA_READ", "offsetof(struct fi_ops_rma, read)"},
            {"OPS_RMA_READMSG", "offsetof(struct fi_ops_rma, readmsg)"},
            {"OPS_RMA_WRITE", "offsetof(struct fi_ops_rma, write)"},
            {"OPS_RMA_WRITEMSG", "offsetof(struct fi_ops_rma, writemsg)"},
            {"OPS_RMA_WRITEDATA", "offsetof(struct fi_ops_rma, writedata)"},
            {"OPS_TAGGED_RECV", "offsetof(struct fi_ops_tagged, recv)"},
            {"OPS_TAGGED_SENDDATA", "offsetof(struct fi_ops_tagged, senddata)"},
            {"MSG_IOV", "offsetof(struct fi_msg, msg_iov)"},
            {"MSG_DESC", "offsetof(struct fi_msg, desc)"},
            {"MSG_IOV_COUNT", "offsetof(struct fi_msg, iov_count)"},
            {"MSG_ADDR", "offsetof(struct fi_msg, addr)"},
            {"MSG_CONTEXT", "offsetof(struct fi_msg, context)"},
            {"MSG_DATA", "offsetof(struct fi_msg, data)"},
            {"MSG_SIZE", "sizeof(struct fi_msg)"},
            {"MSG_RMA_IOV", "offsetof(struct fi_msg_rma, msg_iov)"},
            {"MSG_RMA_DESC", "offsetof(struct fi_msg_rma, desc)"},
            {"MSG_RMA_IOV_COUNT", "offsetof(struct fi_msg_rma, iov_count)"},
            {"MSG_RMA_ADDR", "offsetof(struct fi_msg_rma, addr)"},
            {"MSG_RMA_RMA_IOV", "offsetof(struct fi_msg_rma, rma_iov)"},
            {"MSG_RMA_RMA_IOV_COUNT", "offsetof(struct fi_msg_rma, rma_iov_count)"},
            {"MSG_RMA_CONTEXT", "offsetof(struct fi_msg_rma, context)"},
            {"MSG_RMA_DATA", "offsetof(struct fi_msg_rma, data)"},
            {"MSG_RMA_SIZE", "sizeof(struct fi_msg_rma)"},
            {"RMA_IOV_ADDR", "offsetof(struct fi_rma_iov, addr)"},
            {"RMA_IOV_LEN", "offsetof(struct fi_rma_iov, len)"},
            {"RMA_IOV_KEY", "offsetof(struct fi_rma_iov, key)"},
            {"RMA_IOV_SIZE", "sizeof(struct fi_rma_iov)"},
            {"IOVEC_BASE", "offsetof(struct iovec, iov_base)"},
            {"IOVEC_LEN", "offsetof(struct iovec, iov_len)"},
            {"IOVEC_SIZE", "sizeof(struct iovec)"},
            {"CQ_OPS", "offsetof(struct fid_cq, ops)"},
            {"OPS_CQ_READ", "offsetof(struct fi_ops_cq, read)"},
            {"OPS_CQ_READFROM", "offsetof(struct fi_ops_cq, readfrom)"},
            {"OPS_CQ_READERR", "offsetof(struct fi_ops_cq, readerr)"},
            {"OPS_CQ_STRERROR", "offsetof(struct fi_ops_cq, strerror)"},
            {"CQ_ATTR_SIZE_FIELD", "offsetof(struct fi_cq_attr, size)"},
            {"CQ_ATTR_FORMAT", "offsetof(struct fi_cq_attr, format)"},
            {"CQ_ATTR_WAIT_OBJ", "offsetof(struct fi_cq_attr, wait_obj)"},
            {"CQ_ATTR_SIZE", "sizeof(struct fi_cq_attr)"},
            {"CQ_FORMAT_DATA", "FI_CQ_FORMAT_DATA"},
            {"CQE_OP_CONTEXT", "offsetof(struct fi_cq_data_entry, op_context)"},
            {"CQE_FLAGS", "offsetof(struct fi_cq_data_entry, flags)"},
            {"CQE_LEN", "offsetof(struct fi_cq_data_entry, len)"},
            {"CQE_BUF", "offsetof(struct fi_cq_data_entry, buf)"},
            {"CQE_DATA", "offsetof(struct fi_cq_data_entry, data)"},
            {"CQE_SIZE", "sizeof(struct fi_cq_data_entry)"},
            {"CQERR_OP_CONTEXT", "offsetof(struct fi_cq_err_entry, op_context)"},
            {"CQERR_FLAGS", "offsetof(struct fi_cq_err_entry, flags)"},
            {"CQERR_LEN", "offsetof(struct fi_cq_err_entry, len)"},
            {"CQERR_DATA", "offsetof(struct fi_cq_err_entry, data)"},
            {"CQERR_ERR", "offsetof(struct fi_cq_err_entry, err)"},
            {"CQERR_PROV_ERRNO", "offsetof(struct fi_cq_err_entry, prov_errno)"},
            {"CQERR_ERR_DATA", "offsetof(struct fi_cq_err_entry, err_data)"},
            {"CQERR_ERR_DATA_SIZE", "offsetof(struct fi_cq_err_entry, err_data_size)"},
            {"CQERR_SIZE", "sizeof(struct fi_cq_err_entry)"},
            {"AV_OPS", "offsetof(struct fid_av, ops)"},
            {"OPS_AV_INSERT", "offsetof(struct fi_ops_av, insert)"},
            {"OPS_AV_REMOVE", "offsetof(struct fi_ops_av, remove)"},
            {"OPS_AV_LOOKUP", "offsetof(struct fi_ops_av, lookup)"},
            {"AV_ATTR_TYPE", "offsetof(struct fi_av_attr, type)"},
            {"AV_ATTR_COUNT", "offsetof(struct fi_av_attr, count)"},
            {"AV_ATTR_SIZE", "sizeof(struct fi_av_attr)"},
            {"FI_ENABLE", "FI_ENABLE"}
    };

    private static Map<String, Long> native_;

    @BeforeAll
    static void compileAndRun(@TempDir Path dir) throws Exception {
        StringBuilder c = new StringBuilder("#include <stdio.h>\n#include <stddef.h>\n#include <sys/uio.h>\n"
                + "#include <rdma/fabric.h>\n#include <rdma/fi_domain.h>\n#include <rdma/fi_endpoint.h>\n"
                + "#include <rdma/fi_cm.h>\n#include <rdma/fi_rma.h>\n#include <rdma/fi_tagged.h>\n"
                + "#include <rdma/fi_eq.h>\n#include <rdma/fi_errno.h>\nint main(void) {\n");
        for (String[] row : LAYOUT) {
            print(c, "NativeOffsets." + row[0], row[1]);
        }
        for (Field f : constants(Fi.class)) {
            print(c, "Fi." + f.getName(), "FI_" + f.getName());
        }
        for (Field f : constants(FiErrno.class)) {
            print(c, "FiErrno." + f.getName(), f.getName());
        }
        print(c, "API_VERSION", "FI_VERSION(1, 17)");
        c.append("return 0;\n}\n");
        Path source = dir.resolve("layout.c");
        Files.writeString(source, c.toString());
        Path binary = dir.resolve("layout");
        run(dir, "gcc", "-o", binary.toString(), source.toString());
        native_ = new LinkedHashMap<>();
        for (String line : run(dir, binary.toString()).split("\n")) {
            String[] parts = line.trim().split(" ");
            native_.put(parts[0], Long.parseLong(parts[1]));
        }
    }

    private static void print(StringBuilder c, String name, String expression) {
        c.append("printf(\"%s %lld\\n\", \"").append(name).append("\", (long long)(").append(expression)
                .append("));\n");
    }

    private static List<Field> constants(Class<?> type) {
        List<Field> fields = new ArrayList<>();
        for (Field f : type.getDeclaredFields()) {
            int m = f.getModifiers();
            if (Modifier.isStatic(m) && Modifier.isFinal(m) && (f.getType() == int.class || f.getType() == long.class)) {
                fields.add(f);
            }
        }
        return fields;
    }

    private static String run(Path dir, String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), String.join(" ", command) + " did not finish");
        assertEquals(0, p.exitValue(), String.join(" ", command) + " failed (gcc and libfabric-dev are"
                + " required: bin/install-deps):\n" + out);
        return out;
    }

    private static long value(Class<?> type, String name) throws ReflectiveOperationException {
        Field f = type.getDeclaredField(name);
        f.setAccessible(true);
        return f.getType() == int.class ? f.getInt(null) : f.getLong(null);
    }

    @Test
    void everyNativeOffsetMatchesTheHeaders() throws Exception {
        assertEquals(constants(NativeOffsets.class).size(), LAYOUT.length, "every NativeOffsets constant is pinned");
        List<String> wrong = new ArrayList<>();
        for (String[] row : LAYOUT) {
            long java = value(NativeOffsets.class, row[0]);
            long c = native_.get("NativeOffsets." + row[0]);
            if (java != c) {
                wrong.add(row[0] + " = " + java + " but " + row[1] + " = " + c);
            }
        }
        assertEquals(List.of(), wrong);
    }

    @Test
    void flagsModesAndEnumsMatchTheHeaders() throws Exception {
        List<String> wrong = new ArrayList<>();
        for (Field f : constants(Fi.class)) {
            long java = f.getType() == int.class ? f.getInt(null) : f.getLong(null);
            if (java != native_.get("Fi." + f.getName())) {
                wrong.add("Fi." + f.getName() + " = " + java + " but FI_" + f.getName() + " = "
                        + native_.get("Fi." + f.getName()));
            }
        }
        assertEquals(List.of(), wrong);
    }

    @Test
    void errorNumbersMatchTheHeaders() throws Exception {
        List<String> wrong = new ArrayList<>();
        for (Field f : constants(FiErrno.class)) {
            if (f.getInt(null) != native_.get("FiErrno." + f.getName())) {
                wrong.add(f.getName() + " = " + f.getInt(null) + " but the header says "
                        + native_.get("FiErrno." + f.getName()));
            }
        }
        assertEquals(List.of(), wrong);
    }

    @Test
    void requestedApiVersionIsOneSeventeen() {
        assertEquals(native_.get("API_VERSION"), (long) OfiLibrary.API_VERSION);
    }
}
