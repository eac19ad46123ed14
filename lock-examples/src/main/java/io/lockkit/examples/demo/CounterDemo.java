package io.lockkit.examples.demo;

import io.lockkit.DistributedLock;
import io.lockkit.testkit.redis.RedisFixture;
import java.io.PrintStream;
import java.sql.SQLException;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The counter demo: worker JVMs whose threads increment one Redis counter by read, pause, write
 * under one lockkit lock, and a check that no increment was lost. Run it with
 * {@code mvn -B -q -pl lock-examples exec:java} after {@code mvn -B -q install -DskipTests}, or
 * {@code java -cp … io.lockkit.examples.demo.CounterDemo --help}.
 *
 * <p>Exit status 0 when the counter holds every increment and every worker succeeded; 1 when
 * updates were lost or fencing tokens went backwards; 2 for bad arguments; 3 when Redis or a
 * worker failed.
 */
// Design notes.
// - What the demo shows is incrementUnderTheLock below: every thread of every worker JVM runs it.
//   The rest is the machinery around it: DemoOptions parses the arguments, DemoRun coordinates a
//   run (DemoBackend gets the Redis or PostgreSQL, WorkerProcess starts and stops the worker JVMs),
//   CounterWorker is a worker JVM's main, and DemoReport checks the workers' results and prints the
//   verdict.
// - Workers report through a result file each (every wait, every token with the value written
//   under it), not through their output, which stays free for their errors. The demo checks more
//   than the count: tokens must rise within each worker, and across workers, sorted by token, the
//   written values must rise too, i.e. the fencing tokens order the writes exactly.
public final class CounterDemo {

    static final int EXIT_OK = 0;
    static final int EXIT_LOST_UPDATES = 1;
    static final int EXIT_USAGE = 2;
    static final int EXIT_FAILED = 3;

    /** Held so the level set in main() stays: the logging framework keeps loggers only weakly. */
    private static final Logger FIXTURE_LOGGER = Logger.getLogger(RedisFixture.class.getPackageName());

    private CounterDemo() {}

    /**
     * One thread's increments of the shared counter, each a read, a pause and a write while it holds
     * the lock (or, with {@code --no-lock}, without it, to show updates get lost). The fencing token
     * is recorded with the value written under it, for the check that tokens order the writes.
     */
    static void incrementUnderTheLock(DistributedLock lock, Counters.Counter counter, CounterWorker.ThreadRun run)
            throws InterruptedException, SQLException {
        for (int i = 0; i < run.increments(); i++) {
            long asked = System.nanoTime();
            if (run.useLock()) {
                lock.lock();
            }
            run.waited(i, asked);
            try {
                // The token a real application would hand to the resource it protects.
                long token = run.useLock() ? lock.fencingToken() : 0;
                long next = counter.read() + 1;
                if (run.pauseMillis() > 0) {
                    Thread.sleep(run.pauseMillis());
                }
                counter.write(next);
                run.wrote(i, token, next);
            } finally {
                if (run.useLock()) {
                    lock.unlock();
                }
            }
        }
    }

    /** Runs the demo with the given arguments and exits with its status. */
    public static void main(String[] args) {
        // The demo says where its Redis came from itself; the fixture's own log line would repeat it.
        FIXTURE_LOGGER.setLevel(Level.WARNING);
        System.exit(run(args, System.out));
    }

    /** Runs the demo, printing to {@code out}, and returns the exit status; leaves no process behind. */
    static int run(String[] args, PrintStream out) {
        DemoOptions options;
        try {
            options = DemoOptions.parse(args, System::getProperty);
        } catch (IllegalArgumentException e) {
            out.println("error: " + e.getMessage());
            out.println(DemoOptions.USAGE);
            return EXIT_USAGE;
        }
        if (options.help) {
            out.println(DemoOptions.USAGE);
            return EXIT_OK;
        }
        return new DemoRun(options, out).execute();
    }
}
