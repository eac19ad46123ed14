/**
 * The contract test kit: {@link io.lockkit.testkit.LockContractTest}, which every lock backend
 * extends to prove it keeps lockkit's guarantees.
 */
@NullMarked
package io.lockkit.testkit;

import org.jspecify.annotations.NullMarked;
