package io.lockkit.jedis.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.BuilderFactory;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.util.Pool;

/**
 * Runs the commands of many threads over at most a few connections of one Redis node, pipelining
 * the commands that arrive together: a command finds a connection free and goes out at once, or
 * waits in a queue, and goes out with every command queued beside it in one write, whose replies
 * are read in one go (flat combining). The thread that reads a batch's replies writes the next
 * batch on the same connection before it wakes the callers of its own, and the first caller of the
 * next batch reads that one's replies: a connection goes from batch to batch without waiting for a
 * woken thread, and no caller works for more than two batches. No thread of its own: the callers
 * do the I/O.
 *
 * <p>Why: with more threads than connections a pool hands connections over one thread at a time
 * (a wake-up per command), or, unfair, lets the threads that just returned one take it straight
 * back while others starve. Here a burst of N commands costs one write and one read on each side
 * instead of N each, in arrival order, and a connection is never idle while commands wait.
 *
 * <p>Failures: a command's error reply fails that command only; a broken connection or a timeout
 * fails the commands of its batch (their effect unknown, as with any lost reply) and the connection
 * goes back to the pool as broken. A command that gets no connection within the timeout fails
 * unsent. Waiting ignores interrupts (like a blocking socket read) and keeps the interrupt status.
 */
public final class CommandBatcher {

    /** The most commands written in one go: bounds the reply wait of the first in a batch. */
    static final int MAX_BATCH = 64;

    private final int connections;
    private final long timeoutNanos;
    private final Duration timeout;
    private final AtomicInteger busy = new AtomicInteger();
    /** Where a batch's connection comes from and goes back to. */
    private final BatchConnections pooled;

    private final ConcurrentLinkedQueue<Call> queue = new ConcurrentLinkedQueue<>();
    private final LongAdder batches = new LongAdder();
    private final LongAdder commands = new LongAdder();

    /**
     * @param pool        where connections come from (and go back to after each batch)
     * @param connections the most batches in flight at once, each on its own connection
     * @param timeout     how long a command may wait for a connection before it fails unsent
     */
    public CommandBatcher(Pool<Connection> pool, int connections, Duration timeout) {
        this(pool, connections, timeout, false);
    }

    /**
     * @param pool        where connections come from
     * @param connections the most batches in flight at once, each on its own connection
     * @param timeout     how long a command may wait for a connection before it fails unsent
     * @param keep        whether a connection stays with the batcher between batches (until it
     *                    breaks, {@link #dropKept} or {@link #close}) instead of going back to the
     *                    pool after each: for a pool of the batcher's own, not one an application
     *                    shares, whose connections it would keep from the application
     */
    public CommandBatcher(Pool<Connection> pool, int connections, Duration timeout, boolean keep) {
        if (pool == null) {
            throw new IllegalArgumentException("pool must not be null");
        }
        if (connections < 1) {
            throw new IllegalArgumentException("connections must be at least 1, was " + connections);
        }
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout must be positive, was " + timeout);
        }
        this.connections = connections;
        this.timeout = timeout;
        this.timeoutNanos = timeout.toNanos();
        this.pooled = new BatchConnections(pool, keep ? connections : 0);
    }

    /** Returns the kept connections to the pool (e.g. after their client name changed); later batches borrow anew. */
    public void dropKept() {
        pooled.dropKept();
    }

    /** Keeps no connection from now on and returns the kept ones, so that the pool can close them all. */
    public void close() {
        pooled.close();
    }

    /**
     * Runs one command and returns its reply as {@code UnifiedJedis.evalsha} would (bulk strings
     * decoded), or throws what Jedis would throw for it.
     */
    public Object call(CommandArguments command) {
        Call call = new Call(command, Thread.currentThread());
        queue.add(call);
        await(call, List.of(call));
        return call.reply();
    }

    /**
     * Runs several commands, queued together so that they go out in one write when they fit one
     * batch ({@value #MAX_BATCH} commands), and returns their replies in order: each as
     * {@link #call} returns it, or, for a command Redis answered with an error, that error (a
     * {@link JedisDataException}, not thrown). A broken connection or a timeout fails the whole
     * call, as it fails {@link #call}; what the commands did is then unknown.
     */
    public List<Object> callAll(List<CommandArguments> commands) {
        List<Call> calls = new ArrayList<>(commands.size());
        for (CommandArguments c : commands) {
            calls.add(new Call(c, Thread.currentThread()));
        }
        queue.addAll(calls);
        for (Call call : calls) {
            await(call, calls);
        }
        List<Object> replies = new ArrayList<>(calls.size());
        for (Call call : calls) {
            replies.add(call.replyOrError());
        }
        return replies;
    }

    /**
     * Waits until {@code call} is done, doing the batches' I/O that falls to this thread. When no
     * connection comes free in time, the calls of {@code mine} still queued are taken back unsent
     * and this throws.
     */
    private void await(Call call, List<Call> mine) {
        boolean interrupted = false;
        long deadline = System.nanoTime() + timeoutNanos;
        try {
            while (!call.done) {
                Connection turn = call.turn;
                if (turn != null) {
                    // This call's batch went out on that connection, sent by the thread that read
                    // the batch before it: reading its replies falls to this thread.
                    call.turn = null;
                    carry(turn, java.util.Objects.requireNonNull(call.batch, "batch")); // set with turn
                    continue;
                }
                if (occupy()) {
                    if (start()) {
                        continue;
                    }
                    // Nothing left to send: this call is in another thread's batch; wait for it.
                    release();
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    if (queue.remove(call)) {
                        mine.forEach(queue::remove);
                        wakeHead();
                        throw new JedisConnectionException(
                                "no Redis connection came free within " + timeout + " (" + connections + " in use)");
                    }
                    // Already written: its reply, or the connection's socket timeout, ends the wait.
                    deadline = System.nanoTime() + timeoutNanos;
                    left = timeoutNanos;
                }
                LockSupport.parkNanos(this, left);
                if (Thread.interrupted()) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Batches written so far (for tests and metrics). */
    public long batches() {
        return batches.sum();
    }

    /** Commands written so far (for tests and metrics). */
    public long commands() {
        return commands.sum();
    }

    /** Commands waiting to be written (for tests). */
    int queued() {
        return queue.size();
    }

    private boolean occupy() {
        for (int n = busy.get(); n < connections; n = busy.get()) {
            if (busy.compareAndSet(n, n + 1)) {
                return true;
            }
        }
        return false;
    }

    /** Gives up an occupied connection slot; whoever heads the queue now takes it on. */
    private void release() {
        busy.decrementAndGet();
        wakeHead();
    }

    private void wakeHead() {
        Call head = queue.peek();
        if (head != null) {
            LockSupport.unpark(head.thread);
        }
    }

    /**
     * With a connection slot occupied: sends what is queued on a pooled connection and carries the
     * batch on; false (slot still occupied) when the queue was empty.
     */
    private boolean start() {
        List<Call> batch = take();
        if (batch.isEmpty()) {
            return false;
        }
        Connection connection;
        try {
            connection = pooled.take();
        } catch (RuntimeException e) {
            release();
            fail(batch, e);
            return true;
        }
        try {
            send(connection, batch);
        } catch (RuntimeException e) {
            giveUp(connection);
            fail(batch, e);
            return true;
        }
        carry(connection, batch);
        return true;
    }

    /**
     * Reads the replies of a batch that is out on {@code connection}. Before waking the batch's
     * callers it sends what queued meanwhile on the same connection, and leaves the reading of
     * those replies to the first of their callers: Redis works on the next batch while this thread
     * wakes the callers of the last one, instead of waiting for a woken thread to send it. With
     * nothing queued the connection goes back to the pool and its slot comes free.
     */
    private void carry(Connection connection, List<Call> batch) {
        List<Object> replies;
        try {
            replies = connection.getMany(batch.size());
        } catch (RuntimeException e) {
            giveUp(connection);
            fail(batch, e);
            return;
        }
        List<Call> next = take();
        if (next.isEmpty()) {
            giveUp(connection);
        } else {
            try {
                send(connection, next);
            } catch (RuntimeException e) {
                giveUp(connection);
                complete(batch, replies);
                fail(next, e);
                return;
            }
            next.get(0).handTurn(connection, next);
        }
        complete(batch, replies);
    }

    /**
     * Ends the batches on a connection: returns it to the pool (Jedis marked it broken if it
     * failed, and the pool then drops it) and frees its slot for the queue's head. A failure to
     * return it costs the pool that connection only, never a caller.
     */
    private void giveUp(Connection connection) {
        pooled.giveBack(connection);
        release();
    }

    /** Takes what is queued, up to {@link #MAX_BATCH} calls in arrival order. */
    private List<Call> take() {
        List<Call> batch = new ArrayList<>(Math.min(MAX_BATCH, 8));
        for (Call c; batch.size() < MAX_BATCH && (c = queue.poll()) != null; ) {
            batch.add(c);
        }
        if (!batch.isEmpty()) {
            batches.increment();
            commands.add(batch.size());
        }
        return batch;
    }

    /** Writes a batch in one go. */
    private static void send(Connection connection, List<Call> batch) {
        for (Call c : batch) {
            connection.sendCommand(c.command);
        }
        connection.getMany(0); // flushes the commands, reads no reply
    }

    private static void complete(List<Call> batch, List<Object> replies) {
        for (int i = 0; i < batch.size(); i++) {
            batch.get(i).complete(replies.get(i), null);
        }
    }

    private static void fail(List<Call> batch, RuntimeException e) {
        for (Call c : batch) {
            if (!c.done) {
                c.complete(null, e);
            }
        }
    }

    private static final class Call {
        final CommandArguments command;
        final Thread thread;
        /** Set, with {@link #turn}, when this call heads a batch another thread sent. */
        @Nullable
        List<Call> batch;

        volatile @Nullable Connection turn;

        @Nullable
        Object reply;

        @Nullable
        RuntimeException failure;

        volatile boolean done;

        Call(CommandArguments command, Thread thread) {
            this.command = command;
            this.thread = thread;
        }

        /** Leaves the reading of {@code batch}, out on {@code connection}, to this call's thread. */
        void handTurn(Connection connection, List<Call> batch) {
            this.batch = batch;
            this.turn = connection;
            if (thread != Thread.currentThread()) {
                LockSupport.unpark(thread);
            }
        }

        void complete(@Nullable Object reply, @Nullable RuntimeException failure) {
            this.reply = reply;
            this.failure = failure;
            done = true;
            if (thread != Thread.currentThread()) {
                LockSupport.unpark(thread);
            }
        }

        /** {@link #reply()}, but an error reply of this command alone returned, not thrown. */
        Object replyOrError() {
            if (failure == null && reply instanceof JedisDataException e) {
                return e;
            }
            return reply();
        }

        Object reply() {
            if (failure != null) {
                // One failure may end a whole batch: each caller gets its own exception, with
                // this caller's stack, so that callers may add to it without touching each other's.
                if (failure instanceof JedisConnectionException) {
                    throw new JedisConnectionException(failure.getMessage(), failure);
                }
                if (failure instanceof JedisDataException) {
                    throw new JedisDataException(failure.getMessage(), failure);
                }
                if (failure instanceof JedisException) {
                    throw new JedisException(failure.getMessage(), failure);
                }
                throw new IllegalStateException(failure.getMessage(), failure);
            }
            if (reply instanceof JedisDataException e) {
                // An error reply of this command alone (NOSCRIPT among them, which callers catch by type).
                throw e;
            }
            return BuilderFactory.AGGRESSIVE_ENCODED_OBJECT.build(reply);
        }
    }
}
