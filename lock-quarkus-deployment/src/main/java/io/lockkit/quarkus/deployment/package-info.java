/** Build steps of lockkit's Quarkus extension; not an API. */
@NullMarked
package io.lockkit.quarkus.deployment;

import org.jspecify.annotations.NullMarked;
