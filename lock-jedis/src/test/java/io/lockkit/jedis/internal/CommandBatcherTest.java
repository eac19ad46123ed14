package io.lockkit.jedis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.lockkit.testkit.redis.RedisExtension;
import io.lockkit.testkit.redis.RedisServer;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * The batcher against a real Redis. A {@code BLPOP} on an empty list keeps a connection busy for
 * as long as a test wants: calls made meanwhile queue up, deterministically, and go out together
 * once the test pushes an element.
 */
class CommandBatcherTest {

    @RegisterExtension
    static final RedisExtension REDIS = new RedisExtension();

    private RedisServer redis;
    private RedisClient client;
    private ExecutorService threads;
    private final String prefix =
            "batcher:" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36) + ":";

    @BeforeEach
    void setUp() {
        redis = REDIS.server();
        client = RedisClient.builder()
                .hostAndPort(new HostAndPort(redis.host(), redis.port()))
                .clientConfig(DefaultJedisClientConfig.builder()
                        .clientName("batcher-test")
                        .socketTimeoutMillis(10_000)
                        .build())
                .build();
        threads = Executors.newCachedThreadPool();
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        threads.shutdownNow();
        assertThat(threads.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        client.close();
    }

    private static CommandArguments echo(String text) {
        return new CommandArguments(Protocol.Command.ECHO).add(text);
    }

    private CommandArguments blpop(String list) {
        return new CommandArguments(Protocol.Command.BLPOP).key(prefix + list).add(0);
    }

    /** Occupies the batcher's only connection until {@link #push(String)}. */
    private Future<Object> occupy(CommandBatcher batcher, String list) {
        Future<Object> blocked = threads.submit(() -> batcher.call(blpop(list)));
        await().atMost(Duration.ofSeconds(10)).until(() -> batcher.batches() == 1);
        return blocked;
    }

    /** Kills the batcher's connection that waits in a BLPOP. */
    private void killBlockedConnection() {
        String blpop = String.valueOf(redis.command("CLIENT", "LIST"))
                .lines()
                .filter(l -> l.contains("name=batcher-test ") && l.contains("cmd=blpop"))
                .findFirst()
                .orElseThrow();
        redis.command("CLIENT", "KILL", "ID", blpop.replaceAll("^id=(\\d+) .*", "$1"));
    }

    private void push(String list) {
        redis.command("RPUSH", prefix + list, "x");
    }

    @Test
    void callsThatArriveWhileTheConnectionIsBusyGoOutInOneBatchAndEachGetsItsOwnReply() throws Exception {
        CommandBatcher batcher = new CommandBatcher(client.getPool(), 1, Duration.ofSeconds(10));
        Future<Object> blocked = occupy(batcher, "gate");
        List<Future<Object>> echoes = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            String text = "echo-" + i;
            echoes.add(threads.submit(() -> batcher.call(echo(text))));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> batcher.queued() == 20);

        push("gate");

        assertThat(blocked.get(10, TimeUnit.SECONDS)).isEqualTo(List.of(prefix + "gate", "x"));
        for (int i = 0; i < 20; i++) {
            assertThat(echoes.get(i).get(10, TimeUnit.SECONDS)).isEqualTo("echo-" + i);
        }
        assertThat(batcher.batches()).isEqualTo(2);
        assertThat(batcher.commands()).isEqualTo(21);
    }

    @Test
    void manyThreadsAtOnceEachGetTheirOwnRepliesOverTheAllowedConnections() throws Exception {
        CommandBatcher batcher = new CommandBatcher(client.getPool(), 2, Duration.ofSeconds(10));
        int before = connections();
        List<Future<Integer>> workers = new ArrayList<>();
        for (int t = 0; t < 16; t++) {
            int thread = t;
            workers.add(threads.submit(() -> {
                for (int i = 0; i < 500; i++) {
                    String text = thread + "/" + i;
                    assertThat(batcher.call(echo(text))).isEqualTo(text);
                }
                return 500;
            }));
        }
        for (Future<Integer> w : workers) {
            assertThat(w.get(60, TimeUnit.SECONDS)).isEqualTo(500);
        }
        assertThat(batcher.commands()).isEqualTo(16 * 500);
        assertThat(connections() - before)
                .as("connections opened for 16 threads")
                .isBetween(1, 2);
    }

    @Test
    void anErrorReplyFailsOnlyItsOwnCommand() throws Exception {
        redis.command("SET", prefix + "string", "not a number");
        CommandBatcher batcher = new CommandBatcher(client.getPool(), 1, Duration.ofSeconds(10));
        Future<Object> blocked = occupy(batcher, "gate");
        Future<Object> before = threads.submit(() -> batcher.call(echo("before")));
        await().atMost(Duration.ofSeconds(10)).until(() -> batcher.queued() == 1);
        Future<Object> wrong =
                threads.submit(() -> batcher.call(new CommandArguments(Protocol.Command.INCR).key(prefix + "string")));
        await().atMost(Duration.ofSeconds(10)).until(() -> batcher.queued() == 2);
        Future<Object> after = threads.submit(() -> batcher.call(echo("after")));
        await().atMost(Duration.ofSeconds(10)).until(() -> batcher.queued() == 3);

        push("gate");

        blocked.get(10, TimeUnit.SECONDS);
        assertThat(before.get(10, TimeUnit.SECONDS)).isEqualTo("before");
        assertThat(after.get(10, TimeUnit.SECONDS)).isEqualTo("after");
        assertThatThrownBy(() -> wrong.get(10, TimeUnit.SECONDS))
                .cause()
                .isInstanceOf(JedisDataException.class)
                .hasMessageContaining("not an integer");
        assertThat(batcher.batches()).isEqualTo(2);
    }

    @Test
    void aKilledConnectionFailsItsBatchOnlyAndTheQueuedCallsGoOutOnAFreshOne() throws Exception {
        CommandBatcher batcher = new CommandBatcher(client.getPool(), 1, Duration.ofSeconds(10));
        Future<Object> blocked = occupy(batcher, "gate");
        Future<Object> queued = threads.submit(() -> batcher.call(echo("queued")));
        await().atMost(Duration.ofSeconds(10)).until(() -> batcher.queued() == 1);

        killBlockedConnection();

        assertThatThrownBy(() -> blocked.get(10, TimeUnit.SECONDS))
                .cause()
                .isInstanceOf(JedisConnectionException.class);
        assertThat(queued.get(10, TimeUnit.SECONDS)).isEqualTo("queued");
        assertThat(batcher.call(echo("later"))).isEqualTo("later");
    }

    @Test
    void theNextBatchGoesOutBeforeTheLastOnesCallersWakeAndItsFirstCallerReadsItsReplies() throws Exception {
        CommandBatcher batcher = new CommandBatcher(client.getPool(), 1, Duration.ofSeconds(10));
        long borrowed = client.getPool().getBorrowedCount();
        Future<Long> first = threads.submit(() -> {
            batcher.call(blpop("gate"));
            return batcher.batches();
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> batcher.batches() == 1);
        Future<Object> head = threads.submit(() -> batcher.call(blpop("second-gate")));
        await().atMost(Duration.ofSeconds(10)).until(() -> batcher.queued() == 1);
        Future<Object> behind = threads.submit(() -> batcher.call(echo("behind")));
        await().atMost(Duration.ofSeconds(10)).until(() -> batcher.queued() == 2);

        push("gate");

        assertThat(first.get(10, TimeUnit.SECONDS))
                .as("batches written when the first batch's caller woke")
                .isEqualTo(2);
        assertThat(client.getPool().getBorrowedCount() - borrowed)
                .as("connections borrowed for both batches")
                .isEqualTo(1);
        // The second batch is out on the same connection, blocked in its BLPOP; the first batch's
        // caller has returned, so the second batch's own callers read it. A dead connection fails
        // the two of them, and its slot comes free for later calls.
        assertThat(head.isDone()).isFalse();
        killBlockedConnection();

        assertThatThrownBy(() -> head.get(10, TimeUnit.SECONDS)).cause().isInstanceOf(JedisConnectionException.class);
        assertThatThrownBy(() -> behind.get(10, TimeUnit.SECONDS)).cause().isInstanceOf(JedisConnectionException.class);
        assertThat(batcher.call(echo("later"))).isEqualTo("later");
        assertThat(batcher.batches()).isEqualTo(3);
    }

    @Test
    void aKeepingBatcherKeepsItsConnectionBetweenBatchesAndReturnsItOnDropAndClose() {
        CommandBatcher batcher = new CommandBatcher(client.getPool(), 2, Duration.ofSeconds(10), true);
        assertThat(batcher.call(echo("one"))).isEqualTo("one");
        assertThat(client.getPool().getNumActive()).as("kept, not returned").isEqualTo(1);
        long created = client.getPool().getCreatedCount();
        for (int i = 0; i < 20; i++) {
            assertThat(batcher.call(echo("again " + i))).isEqualTo("again " + i);
        }
        assertThat(client.getPool().getNumActive())
                .as("one connection, one batch at a time")
                .isEqualTo(1);
        assertThat(client.getPool().getCreatedCount()).isEqualTo(created);

        batcher.dropKept();
        assertThat(client.getPool().getNumActive()).isZero();
        assertThat(batcher.call(echo("after the drop"))).isEqualTo("after the drop");
        assertThat(client.getPool().getNumActive()).isEqualTo(1);

        batcher.close();
        assertThat(client.getPool().getNumActive()).as("returned on close").isZero();
        assertThat(batcher.call(echo("closed batchers still run calls"))).isEqualTo("closed batchers still run calls");
        assertThat(client.getPool().getNumActive()).as("and keep nothing").isZero();
    }

    @Test
    void aKeepingBatcherDropsEveryKeptConnectionWhenOneTurnsOutDeadAndGoesOnOnAFreshOne() throws Exception {
        CommandBatcher batcher = new CommandBatcher(client.getPool(), 2, Duration.ofSeconds(10), true);
        Future<Object> blocked = occupy(batcher, "gate");
        assertThat(batcher.call(echo("beside"))).isEqualTo("beside"); // on the second connection
        push("gate");
        assertThat(blocked.get(10, TimeUnit.SECONDS)).isNotNull();
        assertThat(client.getPool().getNumActive()).as("both kept").isEqualTo(2);

        String clients = String.valueOf(redis.command("CLIENT", "LIST"));
        clients.lines()
                .filter(l -> l.contains("name=batcher-test "))
                .forEach(l -> redis.command("CLIENT", "KILL", "ID", l.replaceAll("^id=(\\d+) .*", "$1")));

        assertThatThrownBy(() -> batcher.call(echo("on a dead one"))).isInstanceOf(JedisConnectionException.class);
        assertThat(client.getPool().getNumActive())
                .as("the other, as dead, dropped too")
                .isZero();
        assertThat(batcher.call(echo("later"))).isEqualTo("later");
        assertThat(client.getPool().getNumActive()).isEqualTo(1);
        batcher.close();
    }

    @Test
    void aCallThatGetsNoConnectionInTimeFailsUnsentAndLeavesTheQueue() throws Exception {
        CommandBatcher batcher = new CommandBatcher(client.getPool(), 1, Duration.ofMillis(300));
        Future<Object> blocked = occupy(batcher, "gate");
        long start = System.nanoTime();

        assertThatThrownBy(() -> batcher.call(new CommandArguments(Protocol.Command.INCR).key(prefix + "never")))
                .isInstanceOf(JedisConnectionException.class)
                .hasMessageContaining("no Redis connection came free within PT0.3S");

        assertThat(Duration.ofNanos(System.nanoTime() - start))
                .isBetween(Duration.ofMillis(250), Duration.ofSeconds(5));
        assertThat(batcher.queued()).isZero();
        push("gate");
        blocked.get(10, TimeUnit.SECONDS);
        assertThat(batcher.call(echo("after"))).isEqualTo("after");
        assertThat(redis.command("EXISTS", prefix + "never"))
                .as("the failed INCR was never sent")
                .isEqualTo(0L);
    }

    @Test
    void anInterruptedCallerWaitsWithoutSpinningGetsItsReplyAndKeepsItsInterruptStatus() throws Exception {
        CommandBatcher batcher = new CommandBatcher(client.getPool(), 1, Duration.ofSeconds(10));
        Future<Object> blocked = occupy(batcher, "gate");
        CompletableFuture<Thread> caller = new CompletableFuture<>();
        Future<Object[]> interrupted = threads.submit(() -> {
            caller.complete(Thread.currentThread());
            Thread.currentThread().interrupt();
            Object reply = batcher.call(echo("still"));
            return new Object[] {reply, Thread.currentThread().isInterrupted()};
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> batcher.queued() == 1);
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long id = caller.get().getId();
        long cpuBefore = mx.getThreadCpuTime(id);
        Thread.sleep(300); // a spinning waiter would burn this whole interval
        long cpuUsed = mx.getThreadCpuTime(id) - cpuBefore;

        push("gate");

        blocked.get(10, TimeUnit.SECONDS);
        Object[] result = interrupted.get(10, TimeUnit.SECONDS);
        assertThat(result[0]).isEqualTo("still");
        assertThat(result[1]).as("interrupt status kept").isEqualTo(true);
        if (mx.isThreadCpuTimeSupported() && cpuBefore >= 0) {
            assertThat(Duration.ofNanos(cpuUsed))
                    .as("CPU the parked caller used in 300 ms")
                    .isLessThan(Duration.ofMillis(100));
        }
    }

    @Test
    void badArgumentsAreNamed() {
        assertThatThrownBy(() -> new CommandBatcher(null, 1, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("pool");
        assertThatThrownBy(() -> new CommandBatcher(client.getPool(), 0, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("connections");
        assertThatThrownBy(() -> new CommandBatcher(client.getPool(), 1, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("timeout");
    }

    private int connections() {
        String list = String.valueOf(redis.command("CLIENT", "LIST"));
        return (int) list.lines().filter(l -> l.contains("name=batcher-test ")).count();
    }

    @Test
    void callAllSendsItsCommandsInOneBatchAndReturnsAnErrorReplyInItsPlace() {
        redis.command("SET", prefix + "string", "not a number");
        CommandBatcher batcher = new CommandBatcher(client.getPool(), 1, Duration.ofSeconds(10));

        List<Object> replies = batcher.callAll(
                List.of(echo("a"), new CommandArguments(Protocol.Command.INCR).key(prefix + "string"), echo("b")));

        assertThat(replies).hasSize(3);
        assertThat(replies.get(0)).isEqualTo("a");
        assertThat(replies.get(1))
                .isInstanceOf(JedisDataException.class)
                .asString()
                .contains("not an integer");
        assertThat(replies.get(2)).isEqualTo("b");
        assertThat(batcher.batches()).isEqualTo(1);
        assertThat(batcher.commands()).isEqualTo(3);
    }

    @Test
    void callAllQueuedBehindABusyConnectionGoesOutInTheNextBatchWhoseRepliesItsThreadReads() throws Exception {
        CommandBatcher batcher = new CommandBatcher(client.getPool(), 1, Duration.ofSeconds(10));
        Future<Object> blocked = occupy(batcher, "gate");
        Future<List<Object>> all = threads.submit(() -> batcher.callAll(List.of(echo("x"), echo("y"), echo("z"))));
        await().atMost(Duration.ofSeconds(10)).until(() -> batcher.queued() == 3);

        push("gate");

        blocked.get(10, TimeUnit.SECONDS);
        assertThat(all.get(10, TimeUnit.SECONDS)).containsExactly("x", "y", "z");
        assertThat(batcher.batches()).isEqualTo(2);
    }

    @Test
    void callAllOfMoreThanOneBatchGetsEveryReplyInOrder() {
        CommandBatcher batcher = new CommandBatcher(client.getPool(), 1, Duration.ofSeconds(10));
        List<CommandArguments> commands = new ArrayList<>();
        List<Object> expected = new ArrayList<>();
        for (int i = 0; i < CommandBatcher.MAX_BATCH + 6; i++) {
            commands.add(echo("e" + i));
            expected.add("e" + i);
        }

        assertThat(batcher.callAll(commands)).isEqualTo(expected);
        assertThat(batcher.batches()).isEqualTo(2);
    }
}
