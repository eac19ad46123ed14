package io.lockkit.cli;

import static io.lockkit.cli.CliSupport.run;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lockkit.DistributedLockFactory;
import io.lockkit.LockHandle;
import io.lockkit.LockOptions;
import io.lockkit.cli.CliSupport.RemoteHolder;
import io.lockkit.cli.CliSupport.Result;
import io.lockkit.jedis.JedisLockProvider;
import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The recipe "finding and releasing a stuck lock with the CLI" (docs/recipes.md), step by step: an
 * instance whose work hangs keeps its lock renewed while another waits; the operator finds the
 * holder's host and process with {@code list} and {@code show}, frees the lock with
 * {@code release --force}, the waiter gets it, and the stuck instance is told of the loss.
 */
@DisplayName("recipe: a stuck lock found and released with the CLI")
class StuckLockRecipeTest {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    @Test
    @DisplayName("list and show name the stuck holder's host and pid; release --force hands the lock to the waiter")
    void findAndReleaseAStuckLock(RedisServer redis) throws Exception {
        String name = CliSupport.uniquePrefix() + "orders:42";
        String prefix = name.substring(0, name.length() - "42".length());
        try (RemoteHolder stuck = new RemoteHolder(redis.uri(), List.of(name)).awaitReady();
                DistributedLockFactory locks = DistributedLockFactory.create(JedisLockProvider.create(redis.uri()))) {
            CompletableFuture<Long> waiter = CompletableFuture.supplyAsync(() -> {
                try (LockHandle hold = locks.acquire(name, LockOptions.waitAtMost(Duration.ofMinutes(1)))) {
                    return hold.fencingToken();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            });
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> locks.operations().inspect(name).orElseThrow().waiters() == 1);

            // 1. Which locks are held, by whom, and who waits.
            Result list = run("--uri", redis.uri(), "list", prefix);
            assertThat(list.code()).as("%s", list).isZero();
            assertThat(list.out())
                    .contains("NAME", "HOLDER", "CLIENT", "LEASE LEFT", "WAITERS", name)
                    .contains("/" + stuck.pid() + "/") // CLIENT is <host>/<pid>/<suffix> of the holding JVM
                    .contains("1 lock held under prefix '" + prefix + "'");

            // 2. The lock itself: its lease keeps being renewed, so it will not lapse on its own.
            Result show = run("--uri", redis.uri(), "--json", "show", name);
            assertThat(show.code()).as("%s", show).isZero();
            String client = CliSupport.json(show.out())
                    .getAsJsonObject()
                    .get("clientId")
                    .getAsString();
            assertThat(client).contains("/" + stuck.pid() + "/");
            long token = CliSupport.json(show.out())
                    .getAsJsonObject()
                    .get("fencingToken")
                    .getAsLong();
            assertThat(waiter).isNotDone();

            // 3. After checking that process is stuck (a thread dump, its logs): free the lock.
            Result release = run("--uri", redis.uri(), "release", name, "--force", "--yes");
            assertThat(release.code()).as("%s", release).isZero();
            assertThat(release.out())
                    .contains("released '" + name + "'", client, "the holder learns of the loss at its next renewal");

            // The waiter gets the lock, with a greater token; the stuck holder is told at its next renewal.
            assertThat(waiter.get(10, TimeUnit.SECONDS)).isGreaterThan(token);
            await().atMost(Duration.ofSeconds(10)).until(() -> stuck.contains("LOST " + name));
        }
    }
}
