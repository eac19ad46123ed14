package org.example.filelock;

import io.lockkit.BackendUnavailableException;
import io.lockkit.LockException;
import io.lockkit.spi.Acquisition;
import io.lockkit.spi.LockProvider;
import io.lockkit.spi.Release;
import io.lockkit.spi.support.WakeUpListeners;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Locks kept in files of one directory, for the processes of one host (cron jobs, batch JVMs,
 * command-line tools, several application instances on one machine): every lock is a small file
 * named after the SHA-256 of its name, holding its last fencing token, its holder, the hold count
 * and the end of the lease. Each call opens the file, takes the operating system's exclusive lock
 * on it for the few microseconds of a read and a write, and closes it, so a process that dies
 * holds no file lock; its lock lapses at the end of its lease like any other.
 *
 * <p>Wake-ups come from the operating system's file-change notifications ({@link WatchService}:
 * inotify on Linux; other systems may poll every few seconds, and waiters then fall back to their
 * retry hints). Leases are measured on the host's wall clock, which all its processes share.
 * Not for network file systems: their locking and change notifications are unreliable.
 *
 * <p>The files are read and written by one thread of the provider, never by the caller's: a file
 * channel closes when the thread using it is interrupted, and an interrupt is the caller's
 * business. Two threads per provider: that one and the wake-up watcher.
 */
public final class FileLockProvider implements LockProvider {

    private static final Set<Capability> CAPABILITIES = Set.of(
            Capability.FENCING_TOKENS, Capability.FORCE_RELEASE, Capability.EXPLICIT_LEASE, Capability.INSPECTION);

    /** Threads of this JVM take a file's operating-system lock one at a time (the JVM holds it for all of them). */
    private static final ReentrantLock[] STRIPES = new ReentrantLock[64];

    static {
        for (int i = 0; i < STRIPES.length; i++) {
            STRIPES[i] = new ReentrantLock();
        }
    }

    private final Path directory;
    private final Duration timeout;
    private final boolean sync;
    private final WatchService watcher;
    private final Thread watcherThread;
    private final ExecutorService io;
    private final WakeUpListeners listeners = new WakeUpListeners();
    private volatile boolean closed;

    private FileLockProvider(Path directory, Duration timeout, boolean sync) throws IOException {
        this.directory = directory;
        this.timeout = timeout;
        this.sync = sync;
        this.watcher = directory.getFileSystem().newWatchService();
        directory.register(watcher, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY);
        this.watcherThread = new Thread(this::watch, "file-locks-wake-ups " + directory.getFileName());
        watcherThread.setDaemon(true);
        watcherThread.start();
        this.io = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "file-locks-io " + directory.getFileName());
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * A provider over the locks in {@code directory} (created if missing), waiting at most
     * {@code timeout} for another process's file lock, and forcing every new token to disk when
     * {@code sync} is true (so tokens keep growing across a power loss).
     *
     * @throws IllegalArgumentException when an argument is null, the timeout not positive, or the
     *     directory cannot be used, naming it
     */
    public static FileLockProvider open(Path directory, Duration timeout, boolean sync) {
        if (directory == null) {
            throw new IllegalArgumentException("directory must not be null");
        }
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive, was " + timeout);
        }
        try {
            Path dir = Files.createDirectories(directory).toAbsolutePath().normalize();
            return new FileLockProvider(dir, timeout, sync);
        } catch (IOException | RuntimeException e) {
            throw new IllegalArgumentException("directory " + directory + " cannot hold locks: " + e, e);
        }
    }

    /** A provider over {@code directory} with a 2 s timeout, syncing tokens to disk. */
    public static FileLockProvider open(Path directory) {
        return open(directory, Duration.ofSeconds(2), true);
    }

    @Override
    public Acquisition tryAcquire(LockRequest request) {
        return update(request.name(), (state, now) -> {
            long end = deadline(now, request.lease());
            if (!state.held(now)) {
                state.token++;
                state.owner = request.owner();
                state.count = 1;
                state.deadline = end;
                state.newToken = true;
                return Acquisition.acquired(state.token);
            }
            if (state.owner.equals(request.owner())) {
                if (state.count == Integer.MAX_VALUE) {
                    throw new LockException(request.name(), "hold count would exceed " + Integer.MAX_VALUE);
                }
                state.count++;
                state.deadline = Math.max(state.deadline, end);
                return Acquisition.acquired(state.token);
            }
            state.unchanged = true;
            return Acquisition.busy(Duration.of(state.deadline - now, ChronoUnit.MICROS));
        });
    }

    @Override
    public Release release(String name, String owner) {
        return update(name, (state, now) -> {
            if (!state.held(now) || !state.owner.equals(owner)) {
                state.unchanged = true;
                return Release.NOT_HELD;
            }
            if (--state.count > 0) {
                return Release.STILL_HELD;
            }
            state.free();
            return Release.RELEASED;
        });
    }

    @Override
    public List<Renewal> renew(List<Renewal> renewals) {
        List<Renewal> lost = new ArrayList<>();
        for (Renewal r : renewals) {
            boolean held = update(r.name(), (state, now) -> {
                if (!state.held(now) || !state.owner.equals(r.owner())) {
                    state.unchanged = true;
                    return false;
                }
                state.deadline = deadline(now, r.lease());
                return true;
            });
            if (!held) {
                lost.add(r);
            }
        }
        return lost;
    }

    @Override
    public boolean forceRelease(String name) {
        return update(name, (state, now) -> {
            boolean held = state.held(now);
            if (held) {
                state.free();
            } else {
                state.unchanged = true;
            }
            return held;
        });
    }

    @Override
    public Optional<LockState> inspect(String name) {
        return update(name, (state, now) -> {
            state.unchanged = true;
            if (!state.held(now)) {
                return Optional.<LockState>empty();
            }
            return Optional.of(new LockState(
                    Map.of(state.owner, state.count),
                    Duration.of(state.deadline - now, ChronoUnit.MICROS),
                    state.token,
                    -1));
        });
    }

    @Override
    public Subscription subscribe(String name, WakeUpListener listener) {
        checkOpen(name);
        String file = fileName(name);
        listeners.add(file, listener);
        return () -> listeners.remove(file, listener);
    }

    @Override
    public Set<Capability> capabilities() {
        return CAPABILITIES;
    }

    @Override
    public void close() {
        closed = true;
        listeners.clear();
        io.shutdown();
        try {
            watcher.close();
        } catch (IOException e) {
            // Nothing to do: the watcher thread ends either way.
        }
    }

    @Override
    public String toString() {
        return "FileLockProvider[" + directory + "]";
    }

    /** Tells the subscribers of a changed file; every change, as a release may be among them. */
    private void watch() {
        try {
            while (!closed) {
                WatchKey key = watcher.take();
                for (WatchEvent<?> event : key.pollEvents()) {
                    if (event.kind() == StandardWatchEventKinds.OVERFLOW) {
                        listeners.missedAll();
                    } else {
                        listeners.released(event.context().toString(), null);
                    }
                }
                key.reset();
            }
        } catch (InterruptedException | ClosedWatchServiceException e) {
            // Closed.
        }
    }

    /** One lock's record, as read from its file; a change marks what the write must do. */
    private static final class State {
        long token;
        String owner = "-";
        int count;
        long deadline;
        boolean unchanged;
        boolean newToken;

        boolean held(long now) {
            return count > 0 && deadline - now > 0;
        }

        void free() {
            owner = "-";
            count = 0;
            deadline = 0;
        }

        static State parse(String text, Path file) {
            State s = new State();
            if (text.isEmpty()) {
                return s;
            }
            String[] f = text.strip().split(" ");
            if (f.length != 5 || !f[0].equals("v1")) {
                throw new BackendUnavailableException(
                        null, "lock file " + file + " is not a lock record (delete it to forget the lock)", null);
            }
            s.token = Long.parseLong(f[1]);
            s.owner = f[2];
            s.count = Integer.parseInt(f[3]);
            s.deadline = Long.parseLong(f[4]);
            return s;
        }

        String format() {
            return "v1 " + token + " " + owner + " " + count + " " + deadline + "\n";
        }
    }

    @FunctionalInterface
    private interface Change<T> {
        T apply(State state, long nowMicros);
    }

    /**
     * Reads the lock's record under the file lock, applies the change and writes the record back
     * if it changed, on the provider's I/O thread; waits for it without regard to interrupts.
     */
    private <T> T update(String name, Change<T> change) {
        checkOpen(name);
        Future<T> result;
        try {
            result = io.submit(() -> updateFile(name, change));
        } catch (RejectedExecutionException e) {
            throw new LockException(name, "this FileLockProvider is closed");
        }
        boolean interrupted = false;
        long end = System.nanoTime() + timeout.toNanos() + TimeUnit.SECONDS.toNanos(1);
        try {
            while (true) {
                try {
                    return result.get(Math.max(0, end - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (TimeoutException e) {
                    throw new BackendUnavailableException(name, "the lock file did not answer within " + timeout, e);
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof LockException le) {
                        throw le;
                    }
                    throw new BackendUnavailableException(name, "lock file: " + e.getCause(), e.getCause());
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private <T> T updateFile(String name, Change<T> change) throws IOException {
        Path file = directory.resolve(fileName(name));
        ReentrantLock stripe = STRIPES[Math.floorMod(file.hashCode(), STRIPES.length)];
        stripe.lock();
        try (FileChannel channel = FileChannel.open(
                        file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
                FileLock ignored = lock(channel, name)) {
            ByteBuffer buffer = ByteBuffer.allocate((int) Math.min(channel.size(), 256));
            while (buffer.hasRemaining() && channel.read(buffer) >= 0) {
                // read the whole record
            }
            State state = State.parse(new String(buffer.array(), 0, buffer.position(), StandardCharsets.US_ASCII), file);
            T result = change.apply(state, now());
            if (!state.unchanged) {
                byte[] record = state.format().getBytes(StandardCharsets.US_ASCII);
                channel.truncate(record.length);
                channel.write(ByteBuffer.wrap(record), 0);
                if (sync && state.newToken) {
                    channel.force(false);
                }
            }
            return result;
        } finally {
            stripe.unlock();
        }
    }

    /** The file lock, waiting at most the timeout for another process to let go of it. */
    private FileLock lock(FileChannel channel, String name) throws IOException {
        long end = System.nanoTime() + timeout.toNanos();
        long pause = 1;
        while (true) {
            FileLock lock = channel.tryLock();
            if (lock != null) {
                return lock;
            }
            if (System.nanoTime() - end > 0) {
                throw new BackendUnavailableException(
                        name, "another process kept the lock file busy for more than " + timeout, null);
            }
            try {
                Thread.sleep(pause);
            } catch (InterruptedException e) {
                throw new BackendUnavailableException(name, "the provider is closing", e);
            }
            pause = Math.min(pause * 2, 20);
        }
    }

    private void checkOpen(String name) {
        if (closed) {
            throw new LockException(name, "this FileLockProvider is closed");
        }
    }

    private static long now() {
        return ChronoUnit.MICROS.between(Instant.EPOCH, Instant.now());
    }

    /** The end of a lease from now, in microseconds, rounded up. */
    private static long deadline(long now, Duration lease) {
        long micros = lease.toNanos() / 1000 + (lease.toNanos() % 1000 == 0 ? 0 : 1);
        return now + micros;
    }

    /** The SHA-256 of the name's UTF-8 bytes, so any name (up to the 8,192 chars lockkit allows) is a valid file name. */
    static String fileName(String name) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(name.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest) + ".lock";
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }
}
