package io.lockkit.benchmarks;

/** The three lock implementations measured side by side, in the order the results show them. */
public enum Library {
    /** EVALSHA of a minimal acquire and release script through Jedis, retry-on-message waiting. */
    FLOOR("raw floor"),
    /** {@code JedisLockProvider} under {@code DistributedLockFactory}. */
    LOCKKIT("lockkit"),
    /** Redisson's {@code RLock}. */
    REDISSON("Redisson");

    private final String label;

    Library(String label) {
        this.label = label;
    }

    /** How tables and the chart name it. */
    public String label() {
        return label;
    }
}
