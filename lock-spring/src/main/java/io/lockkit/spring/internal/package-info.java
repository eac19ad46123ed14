/** Implementation details of lock-spring; not an API: may change in any release. */
@NullMarked
package io.lockkit.spring.internal;

import org.jspecify.annotations.NullMarked;
