package io.lockkit.jedis.support;

import static org.awaitility.Awaitility.await;

import io.lockkit.jedis.JedisLockProvider;
import io.lockkit.jedis.internal.Keys;
import io.lockkit.testkit.redis.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * What a test's Redis holds: keys, pub/sub channels and subscriber counts, command counters. Reads
 * through the fixture's own client, so it sees the server as an operator would, independently of
 * the provider under test. Thread-safe.
 */
public final class RedisState {

    private final Function<String[], Object> command;

    private RedisState(Function<String[], Object> command) {
        this.command = command;
    }

    public static RedisState of(RedisServer server) {
        return new RedisState(server::command);
    }

    /** Every key of the current database, sorted. */
    public Set<String> keys() {
        return keys("*");
    }

    /** The keys matching a glob pattern, sorted. */
    public Set<String> keys(String pattern) {
        Set<String> keys = new TreeSet<>();
        for (Object k : (List<?>) command.apply(new String[] {"KEYS", pattern})) {
            keys.add(String.valueOf(k));
        }
        return keys;
    }

    /** Every channel with at least one subscriber, sorted. */
    public Set<String> channels() {
        return channels("*");
    }

    /** The channels with subscribers that match a glob pattern, sorted. */
    public Set<String> channels(String pattern) {
        Set<String> channels = new TreeSet<>();
        for (Object c : (List<?>) command.apply(new String[] {"PUBSUB", "CHANNELS", pattern})) {
            channels.add(String.valueOf(c));
        }
        return channels;
    }

    /** {@code PUBSUB NUMSUB channel}. */
    public long subscribers(String channel) {
        List<?> reply = (List<?>) command.apply(new String[] {"PUBSUB", "NUMSUB", channel});
        return (Long) reply.get(1);
    }

    public long dbSize() {
        return (Long) command.apply(new String[] {"DBSIZE"});
    }

    /** The remaining time to live of a key in ms, -1 without expiry, -2 when it does not exist. */
    public long pttl(String key) {
        return (Long) command.apply(new String[] {"PTTL", key});
    }

    /** How many calls of these commands the server counted since start or {@code CONFIG RESETSTAT}. */
    public long calls(String... commands) {
        String info = (String) command.apply(new String[] {"INFO", "commandstats"});
        long total = 0;
        for (String line : info.split("\r?\n")) {
            for (String c : commands) {
                if (line.startsWith("cmdstat_" + c + ":")) {
                    String calls = line.substring(line.indexOf("calls=") + 6);
                    total += Long.parseLong(calls.substring(0, calls.indexOf(',')));
                }
            }
        }
        return total;
    }

    /** Script calls (EVALSHA and EVAL) so far: every provider command is one. */
    public long scriptCalls() {
        return calls("evalsha", "eval");
    }

    /**
     * The owner holding {@code name} (default prefix), read from its lock hash; empty when the
     * lock is free, whether its hash is gone or only keeps the last token after a release.
     */
    public java.util.Optional<String> holder(String name) {
        return java.util.Optional.ofNullable(command.apply(new String[] {"HGET", lockKey(name), "~o"}))
                .map(String::valueOf);
    }

    /** The lock hash key of {@code name} under the default prefix. */
    public static String lockKey(String name) {
        return lockKey(JedisLockProvider.DEFAULT_KEY_PREFIX, name);
    }

    public static String lockKey(String prefix, String name) {
        return Keys.lock(new Keys(prefix).base(name));
    }

    /** The wake-up channel of {@code name} under the default prefix. */
    public static String channel(String name) {
        return channel(JedisLockProvider.DEFAULT_KEY_PREFIX, name);
    }

    public static String channel(String prefix, String name) {
        return Keys.channel(new Keys(prefix).base(name));
    }

    public Snapshot snapshot() {
        return new Snapshot(keys(), channels());
    }

    /**
     * Waits until the keys and channels are those of {@code before} again, e.g. until fence keys
     * with a short retention have expired; fails listing what is left over otherwise.
     */
    public void awaitBackTo(Snapshot before, Duration atMost) {
        try {
            // First look at once: most tests leave nothing, and the default first delay (one poll
            // interval) cost every test of BadInputTest 50 ms.
            await().atMost(atMost)
                    .pollDelay(Duration.ZERO)
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> keys().equals(before.keys()) && channels().equals(before.channels()));
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError(
                    "Redis still holds what the test left behind after " + atMost + ": " + leftOver(before), e);
        }
    }

    /** Keys and channels that are new since {@code before}, with the keys' remaining TTL. */
    public String leftOver(Snapshot before) {
        List<String> extra = new ArrayList<>();
        for (String k : keys()) {
            if (!before.keys().contains(k)) {
                extra.add("key " + k + " (pttl " + pttl(k) + " ms)");
            }
        }
        for (String c : channels()) {
            if (!before.channels().contains(c)) {
                extra.add("channel " + c + " (" + subscribers(c) + " subscribers)");
            }
        }
        return extra.isEmpty() ? "nothing" : String.join(", ", extra);
    }

    /** Keys and channels at one moment. */
    public record Snapshot(Set<String> keys, Set<String> channels) {}
}
