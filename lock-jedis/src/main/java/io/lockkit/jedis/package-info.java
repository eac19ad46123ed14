/**
 * The Redis lock provider on Jedis (standalone, Sentinel and Cluster).
 */
package io.lockkit.jedis;
