package io.lockkit;

/** {@link DistributedReadWriteLock} of two {@link ThreadOwnedLock}s of one name. Thread-safe, immutable. */
final class ThreadOwnedReadWriteLock implements DistributedReadWriteLock {

    private final String name;
    private final DistributedLock read;
    private final DistributedLock write;

    ThreadOwnedReadWriteLock(String name, DistributedLock read, DistributedLock write) {
        this.name = name;
        this.read = read;
        this.write = write;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public DistributedLock readLock() {
        return read;
    }

    @Override
    public DistributedLock writeLock() {
        return write;
    }

    @Override
    public String toString() {
        return "DistributedReadWriteLock[" + LockException.abbreviate(name) + "]";
    }
}
