/**
 * The Redis lock provider on Jedis (standalone, Sentinel and Cluster).
 */
@NullMarked
package io.lockkit.jedis;

import org.jspecify.annotations.NullMarked;
