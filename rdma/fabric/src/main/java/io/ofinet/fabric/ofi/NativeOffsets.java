package io.ofinet.fabric.ofi;

/**
 * Offsets and sizes of the libfabric 1.17 structures the binding reads and writes (x86-64 and
 * aarch64 Linux, LP64). Pinned against the installed headers by a test that compiles a C program
 * printing {@code offsetof} and {@code sizeof}.
 */
final class NativeOffsets {
    private NativeOffsets() {
    }

    // struct fi_info
    static final int INFO_NEXT = 0;
    static final int INFO_CAPS = 8;
    static final int INFO_MODE = 16;
    static final int INFO_ADDR_FORMAT = 24;
    static final int INFO_SRC_ADDRLEN = 32;
    static final int INFO_SRC_ADDR = 48;
    static final int INFO_TX_ATTR = 72;
    static final int INFO_RX_ATTR = 80;
    static final int INFO_EP_ATTR = 88;
    static final int INFO_DOMAIN_ATTR = 96;
    static final int INFO_FABRIC_ATTR = 104;
    static final int INFO_NIC = 112;
    static final int INFO_SIZE = 120;

    // struct fi_tx_attr / fi_rx_attr
    static final int TX_CAPS = 0;
    static final int TX_MSG_ORDER = 24;
    static final int TX_INJECT_SIZE = 40;
    static final int TX_SIZE = 48;
    static final int TX_ATTR_SIZE = 80;
    static final int RX_CAPS = 0;
    static final int RX_SIZE = 48;
    static final int RX_ATTR_SIZE = 64;

    // struct fi_ep_attr
    static final int EP_TYPE = 0;
    static final int EP_MAX_MSG_SIZE = 16;
    static final int EP_ATTR_SIZE = 96;

    // struct fi_domain_attr
    static final int DOMAIN_NAME = 8;
    static final int DOMAIN_THREADING = 16;
    static final int DOMAIN_CONTROL_PROGRESS = 20;
    static final int DOMAIN_DATA_PROGRESS = 24;
    static final int DOMAIN_MR_MODE = 36;
    static final int DOMAIN_MR_KEY_SIZE = 40;
    static final int DOMAIN_CQ_DATA_SIZE = 48;
    static final int DOMAIN_ATTR_SIZE = 192;

    // struct fi_fabric_attr
    static final int FABRIC_NAME = 8;
    static final int FABRIC_PROV_NAME = 16;
    static final int FABRIC_API_VERSION = 28;
    static final int FABRIC_ATTR_SIZE = 32;

    // struct fid_nic and its attributes
    static final int NIC_DEVICE_ATTR = 24;
    static final int NIC_BUS_ATTR = 32;
    static final int NIC_LINK_ATTR = 40;
    static final int DEVICE_NAME = 0;
    static final int BUS_TYPE = 0;
    static final int BUS_PCI = 4;
    static final int PCI_DOMAIN_ID = 0;
    static final int PCI_BUS_ID = 2;
    static final int PCI_DEVICE_ID = 3;
    static final int PCI_FUNCTION_ID = 4;
    static final int LINK_MTU = 8;
    static final int LINK_SPEED = 16;
    /** enum fi_bus_type: FI_BUS_PCI. */
    static final int BUS_TYPE_PCI = 1;

    // struct fid and struct fi_ops
    static final int FID_OPS = 16;
    static final int FI_OPS_CLOSE = 8;
    static final int FI_OPS_BIND = 16;
    static final int FI_OPS_CONTROL = 24;

    // struct fid_fabric / fi_ops_fabric
    static final int FABRIC_OPS = 24;
    static final int OPS_FABRIC_DOMAIN = 8;

    // struct fid_domain / fi_ops_domain / fi_ops_mr
    static final int DOMAIN_OPS = 24;
    static final int DOMAIN_MR = 32;
    static final int OPS_DOMAIN_AV_OPEN = 8;
    static final int OPS_DOMAIN_CQ_OPEN = 16;
    static final int OPS_DOMAIN_ENDPOINT = 24;
    static final int OPS_MR_REGATTR = 24;

    // struct fid_mr
    static final int MR_MEM_DESC = 24;
    static final int MR_KEY = 32;

    // struct fi_mr_attr
    static final int MR_ATTR_IOV = 0;
    static final int MR_ATTR_IOV_COUNT = 8;
    static final int MR_ATTR_ACCESS = 16;
    static final int MR_ATTR_OFFSET = 24;
    static final int MR_ATTR_REQUESTED_KEY = 32;
    static final int MR_ATTR_IFACE = 64;
    static final int MR_ATTR_SIZE = 80;

    // struct fid_ep and its tables
    static final int EP_OPS = 24;
    static final int EP_CM = 32;
    static final int EP_MSG = 40;
    static final int EP_RMA = 48;
    static final int EP_TAGGED = 56;
    static final int OPS_EP_CANCEL = 8;
    static final int OPS_CM_GETNAME = 16;
    static final int OPS_MSG_RECV = 8;
    static final int OPS_MSG_RECVMSG = 24;
    static final int OPS_MSG_SEND = 32;
    static final int OPS_MSG_SENDMSG = 48;
    static final int OPS_MSG_SENDDATA = 64;
    static final int OPS_RMA_READ = 8;
    static final int OPS_RMA_READMSG = 24;
    static final int OPS_RMA_WRITE = 32;
    static final int OPS_RMA_WRITEMSG = 48;
    static final int OPS_RMA_WRITEDATA = 64;
    static final int OPS_TAGGED_RECV = 8;
    static final int OPS_TAGGED_SENDDATA = 64;

    // struct fi_msg / fi_msg_rma / fi_rma_iov / iovec
    static final int MSG_IOV = 0;
    static final int MSG_DESC = 8;
    static final int MSG_IOV_COUNT = 16;
    static final int MSG_ADDR = 24;
    static final int MSG_CONTEXT = 32;
    static final int MSG_DATA = 40;
    static final int MSG_SIZE = 48;
    static final int MSG_RMA_IOV = 0;
    static final int MSG_RMA_DESC = 8;
    static final int MSG_RMA_IOV_COUNT = 16;
    static final int MSG_RMA_ADDR = 24;
    static final int MSG_RMA_RMA_IOV = 32;
    static final int MSG_RMA_RMA_IOV_COUNT = 40;
    static final int MSG_RMA_CONTEXT = 48;
    static final int MSG_RMA_DATA = 56;
    static final int MSG_RMA_SIZE = 64;
    static final int RMA_IOV_ADDR = 0;
    static final int RMA_IOV_LEN = 8;
    static final int RMA_IOV_KEY = 16;
    static final int RMA_IOV_SIZE = 24;
    static final int IOVEC_BASE = 0;
    static final int IOVEC_LEN = 8;
    static final int IOVEC_SIZE = 16;

    // struct fid_cq / fi_ops_cq / fi_cq_attr
    static final int CQ_OPS = 24;
    static final int OPS_CQ_READ = 8;
    static final int OPS_CQ_READFROM = 16;
    static final int OPS_CQ_READERR = 24;
    static final int OPS_CQ_STRERROR = 56;
    static final int CQ_ATTR_SIZE_FIELD = 0;
    static final int CQ_ATTR_FORMAT = 16;
    static final int CQ_ATTR_WAIT_OBJ = 20;
    static final int CQ_ATTR_SIZE = 40;
    /** enum fi_cq_format: FI_CQ_FORMAT_DATA. */
    static final int CQ_FORMAT_DATA = 3;

    // struct fi_cq_data_entry / fi_cq_err_entry
    static final int CQE_OP_CONTEXT = 0;
    static final int CQE_FLAGS = 8;
    static final int CQE_LEN = 16;
    static final int CQE_BUF = 24;
    static final int CQE_DATA = 32;
    static final int CQE_SIZE = 40;
    static final int CQERR_OP_CONTEXT = 0;
    static final int CQERR_FLAGS = 8;
    static final int CQERR_LEN = 16;
    static final int CQERR_DATA = 32;
    static final int CQERR_ERR = 56;
    static final int CQERR_PROV_ERRNO = 60;
    static final int CQERR_ERR_DATA = 64;
    static final int CQERR_ERR_DATA_SIZE = 72;
    static final int CQERR_SIZE = 80;

    // struct fid_av / fi_ops_av / fi_av_attr
    static final int AV_OPS = 24;
    static final int OPS_AV_INSERT = 8;
    static final int OPS_AV_REMOVE = 32;
    static final int OPS_AV_LOOKUP = 40;
    static final int AV_ATTR_TYPE = 0;
    static final int AV_ATTR_COUNT = 8;
    static final int AV_ATTR_SIZE = 48;

    /** fi_control command FI_ENABLE. */
    static final int FI_ENABLE = 6;
}
