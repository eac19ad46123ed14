/** Implementation details; not an API: may change in any release. */
@NullMarked
package io.lockkit.jdbc.internal;

import org.jspecify.annotations.NullMarked;
