/*
 * Layout checks: every size and member offset of the project's declarations (nccl_abi.h) against the
 * figures of NCCL 2.30's headers (plugins/net/example/nccl/net_v12.h, net.h), recorded here as facts;
 * then the loaded table's name and which entries it offers.
 */
#include <stddef.h>
#include <stdio.h>

#include "driver.h"

#define EXPECT_SIZE(type, bytes) check(sizeof(type) == (bytes), "sizeof(" #type ") is %zu, NCCL's is %d", \
                                       sizeof(type), (bytes))
#define EXPECT_OFFSET(type, member, bytes)                                                                   \
    check(offsetof(type, member) == (bytes), "offsetof(" #type ", " #member ") is %zu, NCCL's is %d",       \
          offsetof(type, member), (bytes))

int run_layout(void) {
    driver_side = "layout";
    EXPECT_SIZE(ncclNet_v12_t, 176);
    EXPECT_SIZE(ncclNetProperties_v12_t, 128);
    EXPECT_SIZE(ncclNetVDeviceProps_v12_t, 36);
    EXPECT_SIZE(ncclNetCommConfig_v12_t, 4);
    check(NCCL_NET_HANDLE_MAXSIZE == 128, "NCCL_NET_HANDLE_MAXSIZE is 128");

    EXPECT_OFFSET(ncclNetProperties_v12_t, name, 0);
    EXPECT_OFFSET(ncclNetProperties_v12_t, pciPath, 8);
    EXPECT_OFFSET(ncclNetProperties_v12_t, guid, 16);
    EXPECT_OFFSET(ncclNetProperties_v12_t, ptrSupport, 24);
    EXPECT_OFFSET(ncclNetProperties_v12_t, regIsGlobal, 28);
    EXPECT_OFFSET(ncclNetProperties_v12_t, forceFlush, 32);
    EXPECT_OFFSET(ncclNetProperties_v12_t, speed, 36);
    EXPECT_OFFSET(ncclNetProperties_v12_t, port, 40);
    EXPECT_OFFSET(ncclNetProperties_v12_t, latency, 44);
    EXPECT_OFFSET(ncclNetProperties_v12_t, maxComms, 48);
    EXPECT_OFFSET(ncclNetProperties_v12_t, maxRecvs, 52);
    EXPECT_OFFSET(ncclNetProperties_v12_t, netDeviceType, 56);
    EXPECT_OFFSET(ncclNetProperties_v12_t, netDeviceVersion, 60);
    EXPECT_OFFSET(ncclNetProperties_v12_t, vProps, 64);
    EXPECT_OFFSET(ncclNetProperties_v12_t, maxP2pBytes, 104);
    EXPECT_OFFSET(ncclNetProperties_v12_t, maxCollBytes, 112);
    EXPECT_OFFSET(ncclNetProperties_v12_t, maxMultiRequestSize, 120);
    EXPECT_OFFSET(ncclNetProperties_v12_t, railId, 124);
    EXPECT_OFFSET(ncclNetProperties_v12_t, planeId, 126);

    /* The table: the name, then 21 function pointers in NCCL's order. */
    static const char *const members[] = {"init", "devices", "getProperties", "listen", "connect", "accept",
                                          "regMr", "regMrDmaBuf", "deregMr", "isend", "irecv", "iflush", "test",
                                          "closeSend", "closeRecv", "closeListen", "getDeviceMr", "irecvConsumed",
                                          "makeVDevice", "finalize", "setNetAttr"};
    const size_t offsets[] = {
        offsetof(ncclNet_v12_t, init),        offsetof(ncclNet_v12_t, devices),
        offsetof(ncclNet_v12_t, getProperties), offsetof(ncclNet_v12_t, listen),
        offsetof(ncclNet_v12_t, connect),     offsetof(ncclNet_v12_t, accept),
        offsetof(ncclNet_v12_t, regMr),       offsetof(ncclNet_v12_t, regMrDmaBuf),
        offsetof(ncclNet_v12_t, deregMr),     offsetof(ncclNet_v12_t, isend),
        offsetof(ncclNet_v12_t, irecv),       offsetof(ncclNet_v12_t, iflush),
        offsetof(ncclNet_v12_t, test),        offsetof(ncclNet_v12_t, closeSend),
        offsetof(ncclNet_v12_t, closeRecv),   offsetof(ncclNet_v12_t, closeListen),
        offsetof(ncclNet_v12_t, getDeviceMr), offsetof(ncclNet_v12_t, irecvConsumed),
        offsetof(ncclNet_v12_t, makeVDevice), offsetof(ncclNet_v12_t, finalize),
        offsetof(ncclNet_v12_t, setNetAttr)};
    EXPECT_OFFSET(ncclNet_v12_t, name, 0);
    for (size_t i = 0; i < sizeof members / sizeof members[0]; i++) {
        check(offsets[i] == 8 * (i + 1), "offsetof(ncclNet_v12_t, %s) is %zu, NCCL's is %zu", members[i], offsets[i],
              8 * (i + 1));
    }

    /* The older tables and their properties (NCCL 2.30's net_v6.h ... net_v11.h). */
    EXPECT_SIZE(ncclNet_v11_t, 176);
    EXPECT_SIZE(ncclNet_v10_t, 160);
    EXPECT_SIZE(ncclNet_v9_t, 160);
    EXPECT_SIZE(ncclNet_v8_t, 152);
    EXPECT_SIZE(ncclNet_v7_t, 152);
    EXPECT_SIZE(ncclNet_v6_t, 136);
    EXPECT_SIZE(ncclNetProperties_v11_t, 112);
    EXPECT_SIZE(ncclNetProperties_v10_t, 104);
    EXPECT_SIZE(ncclNetProperties_v8_t, 64);
    EXPECT_SIZE(ncclNetProperties_v7_t, 56);
    EXPECT_SIZE(ncclNetProperties_v6_t, 48);
    EXPECT_SIZE(ncclNetVDeviceProps_v11_t, 20);
    EXPECT_OFFSET(ncclNetProperties_v11_t, maxP2pBytes, 88);
    EXPECT_OFFSET(ncclNetProperties_v11_t, maxMultiRequestSize, 104);
    EXPECT_OFFSET(ncclNetProperties_v10_t, maxCollBytes, 96);
    EXPECT_OFFSET(ncclNetProperties_v8_t, speed, 32);
    EXPECT_OFFSET(ncclNetProperties_v8_t, netDeviceVersion, 56);
    EXPECT_OFFSET(ncclNetProperties_v7_t, speed, 28);
    EXPECT_OFFSET(ncclNetProperties_v7_t, netDeviceVersion, 52);
    EXPECT_OFFSET(ncclNetProperties_v6_t, maxRecvs, 44);
    EXPECT_OFFSET(ncclNet_v11_t, finalize, 160);
    EXPECT_OFFSET(ncclNet_v10_t, makeVDevice, 152);
    EXPECT_OFFSET(ncclNet_v9_t, isend, 80);
    EXPECT_OFFSET(ncclNet_v8_t, irecvConsumed, 144);
    EXPECT_OFFSET(ncclNet_v7_t, regMr, 56);
    EXPECT_OFFSET(ncclNet_v6_t, closeListen, 128);

    ncclNet_v12_t *net = load_table();
    if (net != NULL) {
        check(is_ofinet(net), "the table's name is \"ofinet\"");
        check(net->init && net->devices && net->getProperties && net->listen && net->connect && net->accept &&
                  net->regMr && net->deregMr && net->isend && net->irecv && net->iflush &&
                  net->test && net->closeSend && net->closeRecv && net->closeListen && net->finalize,
              "every operation ofinet offers has an entry");
        check(!net->regMrDmaBuf && !net->getDeviceMr && !net->irecvConsumed && !net->makeVDevice && !net->setNetAttr,
              "regMrDmaBuf, getDeviceMr, irecvConsumed, makeVDevice and setNetAttr are NULL (not offered)");
        /* Before any init, calls fail cleanly. */
        int ndev = -1;
        check(net->devices(&ndev) == ncclInternalError, "devices before init is ncclInternalError");
        check(net->test((void *)0x1234, &ndev, NULL) == ncclInternalError, "test before init is ncclInternalError");
    }
    printf("layout: %d passed, %d failed\n", driver_passed, driver_failed);
    return driver_failed == 0 ? 0 : 1;
}
