/**
 * Memory registration: MR handles with their data-rail and control-rail registrations, domain
 * and endpoint scope (FI_MR_ENDPOINT), the registration cache and the key pool.
 */
package io.ofinet.mr;
