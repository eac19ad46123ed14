package io.lockkit.testkit.redis;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Counts the commands that the connections of one client name send to a server, for tests that
 * count a client's commands: unlike {@code INFO commandstats}, it leaves out every other
 * connection (the fixture's own, other tests' clients) and the commands scripts run.
 *
 * <pre>{@code
 * JedisLockProvider p = JedisLockProvider.builder().uri(redis.uri()).clientName("counted").build();
 * try (CommandMonitor monitor = CommandMonitor.start(redis, "counted")) {
 *     p.inspect("orders:42");
 *     assertThat(monitor.stop()).containsExactly(entry("evalsha", 1L));
 * }
 * }</pre>
 *
 * <p>Not thread-safe: one test thread starts, stops and closes it. The counted client must name
 * its connections ({@code CLIENT SETNAME}, e.g. Jedis' {@code clientName}).
 */
// Design notes. MONITOR shows each command as the server received it, tagged with the sending
// connection's address ("[0 127.0.0.1:51234]") or "[0 lua]" for a command a script ran. The window
// is opened and closed by ECHO markers sent on a connection of the fixture's, so it is the server's
// own order that decides what falls inside, with no sleeping. Addresses are mapped to client names
// from CLIENT LIST at both ends of the window, so connections the client opened during the window
// count too (one opened and closed inside it is not seen by either list and is not counted).
public final class CommandMonitor implements AutoCloseable {

    private static final Duration MARKER_TIMEOUT = Duration.ofSeconds(30);

    private final RedisServer server;
    private final String clientName;
    private final String marker;
    private final Socket socket;
    private final Thread reader;
    private final CountDownLatch started = new CountDownLatch(1);
    private final CountDownLatch ended = new CountDownLatch(1);
    /** Address and lower-case command name of every client (non-script) command in the window. */
    private final List<String[]> seen = new ArrayList<>();

    private final Set<String> addressesAtStart;
    private volatile boolean stopped;
    private volatile boolean sawStart;
    private volatile boolean sawEnd;

    private CommandMonitor(RedisServer server, String clientName) throws IOException {
        this.server = server;
        this.clientName = clientName;
        this.marker = "lockkit-command-monitor-"
                + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
        socket = new Socket();
        socket.connect(new InetSocketAddress(server.host(), server.port()), (int) MARKER_TIMEOUT.toMillis());
        OutputStream out = socket.getOutputStream();
        out.write("*1\r\n$7\r\nMONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        BufferedReader in = new BufferedReader(
                new InputStreamReader(socket.getInputStream(), StandardCharsets.ISO_8859_1), 1 << 16);
        String ok = in.readLine();
        if (!"+OK".equals(ok)) {
            socket.close();
            throw new IllegalStateException("MONITOR answered " + ok + " on " + server);
        }
        reader = new Thread(() -> read(in), "command-monitor-" + server.port());
        reader.setDaemon(true);
        reader.start();
        addressesAtStart = addressesOf(clientName);
        server.command("ECHO", marker + ":start");
        await(started, "start");
        if (!sawStart) {
            close();
            throw new IllegalStateException("the MONITOR connection to " + server + " ended before the start marker");
        }
    }

    /**
     * Opens a MONITOR connection to {@code server} and starts counting the commands of the
     * connections named {@code clientName}, from the moment this returns.
     *
     * @throws IllegalArgumentException when {@code clientName} is empty or holds a space
     * @throws UncheckedIOException when the server cannot be reached
     */
    public static CommandMonitor start(RedisServer server, String clientName) {
        Objects.requireNonNull(server, "server");
        if (clientName == null || clientName.isEmpty() || clientName.contains(" ")) {
            throw new IllegalArgumentException(
                    "clientName must be a non-empty name without spaces, was '" + clientName + "'");
        }
        try {
            return new CommandMonitor(server, clientName);
        } catch (IOException e) {
            throw new UncheckedIOException("MONITOR on " + server + " failed: " + e.getMessage(), e);
        }
    }

    /**
     * Ends the window and returns how many times the client sent each command (lower-case names)
     * since {@link #start}. Commands its scripts ran are not counted.
     *
     * @throws IllegalStateException when called twice
     */
    public Map<String, Long> stop() {
        if (stopped) {
            throw new IllegalStateException("stop() was called already");
        }
        stopped = true;
        server.command("ECHO", marker + ":end");
        await(ended, "end");
        if (!sawEnd) {
            throw new IllegalStateException("the MONITOR connection to " + server + " ended before the end marker");
        }
        Set<String> addresses = new HashSet<>(addressesAtStart);
        addresses.addAll(addressesOf(clientName));
        Map<String, Long> counts = new TreeMap<>();
        synchronized (seen) {
            for (String[] command : seen) {
                if (addresses.contains(command[0])) {
                    counts.merge(command[1], 1L, Long::sum);
                }
            }
        }
        return counts;
    }

    /** Stops the MONITOR connection; idempotent. */
    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    private Set<String> addressesOf(String name) {
        Set<String> addresses = new HashSet<>();
        for (String line :
                String.valueOf(server.command("CLIENT", "LIST")).lines().toList()) {
            String address = null;
            String lineName = null;
            for (String field : line.split(" ", -1)) {
                if (field.startsWith("addr=")) {
                    address = field.substring(5);
                } else if (field.startsWith("name=")) {
                    lineName = field.substring(5);
                }
            }
            if (address != null && name.equals(lineName)) {
                addresses.add(address);
            }
        }
        return addresses;
    }

    private void await(CountDownLatch latch, String which) {
        try {
            if (!latch.await(MARKER_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(
                        "MONITOR on " + server + " did not show the " + which + " marker within " + MARKER_TIMEOUT);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the MONITOR " + which + " marker", e);
        }
    }

    // A line: 1700000000.123456 [0 127.0.0.1:51234] "EVALSHA" "…" … ; "[0 lua]" for a script's commands.
    private void read(BufferedReader in) {
        boolean counting = false;
        try {
            String line;
            while ((line = in.readLine()) != null) {
                int open = line.indexOf('[');
                int close = line.indexOf(']', open + 1);
                int q1 = close < 0 ? -1 : line.indexOf('"', close);
                int q2 = q1 < 0 ? -1 : line.indexOf('"', q1 + 1);
                if (open < 0 || q2 < 0) {
                    continue;
                }
                String source = line.substring(open + 1, close);
                String address = source.substring(source.indexOf(' ') + 1);
                String command = line.substring(q1 + 1, q2).toLowerCase(Locale.ROOT);
                if (command.equals("echo") && line.contains(marker + ":start")) {
                    counting = true;
                    sawStart = true;
                    started.countDown();
                } else if (command.equals("echo") && line.contains(marker + ":end")) {
                    sawEnd = true;
                    ended.countDown();
                    return;
                } else if (counting && !address.equals("lua")) {
                    synchronized (seen) {
                        seen.add(new String[] {address, command});
                    }
                }
            }
        } catch (IOException e) {
            // closed
        } finally {
            started.countDown();
            ended.countDown();
        }
    }

    @Override
    public String toString() {
        return "CommandMonitor[" + clientName + " on " + server + "]";
    }
}
