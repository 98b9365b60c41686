package io.ofinet.mr;

/** Where the registrations of one domain live, once resolved. */
public enum Scope {
    /** A registration serves every endpoint of its domain. */
    DOMAIN,
    /** Each registration is bound to the one endpoint that uses it and enabled (FI_MR_ENDPOINT). */
    ENDPOINT
}
