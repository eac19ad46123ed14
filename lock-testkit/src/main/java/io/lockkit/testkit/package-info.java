/**
 * The contract test kit: {@link io.lockkit.testkit.LockContractTest}, which every lock backend
 * extends to prove it keeps lockkit's guarantees.
 */
package io.lockkit.testkit;
