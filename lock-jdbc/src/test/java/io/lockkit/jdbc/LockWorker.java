package io.lockkit.jdbc;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockException;
import io.lockkit.LockHandle;
import io.lockkit.LockOptions;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A worker process for fault tests: takes one lock over and over (waiting for it, holding it a
 * little) until it is killed, and says on standard output when it waits and when it holds, so that
 * the test can kill it (SIGKILL) in either state. Its holds are not recorded: it stands for a
 * process that crashes with a hold or a queue entry, which others must get past.
 *
 * <p>Arguments: JDBC URL, lock name, watchdog lease in ms.
 */
public final class LockWorker {

    private LockWorker() {}

    public static void main(String[] args) throws Exception {
        String url = args[0];
        String name = args[1];
        Duration lease = Duration.ofMillis(Long.parseLong(args[2]));
        try (DistributedLockFactory f = DistributedLockFactory.builder(JdbcLockProvider.create(url))
                .defaultOptions(LockOptions.builder().watchdogLease(lease).build())
                .build()) {
            while (true) {
                System.out.println("waiting");
                System.out.flush();
                try (LockHandle h = f.acquire(name, LockOptions.waitAtMost(Duration.ofSeconds(30)))) {
                    System.out.println("held " + h.fencingToken());
                    System.out.flush();
                    Thread.sleep(50 + ThreadLocalRandom.current().nextInt(200));
                } catch (LockException e) {
                    // the database is down or the wait ran out: again
                }
            }
        }
    }
}
