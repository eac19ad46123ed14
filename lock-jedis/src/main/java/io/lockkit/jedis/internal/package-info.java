/** Implementation details; not an API: may change in any release. */
@NullMarked
package io.lockkit.jedis.internal;

import org.jspecify.annotations.NullMarked;
