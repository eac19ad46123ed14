/** Implementation details; not an API: may change in any release. */
@NullMarked
package io.lockkit.quarkus.internal;

import org.jspecify.annotations.NullMarked;
