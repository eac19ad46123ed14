package io.lockkit.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Counts the commands clients send, by name, from a {@code MONITOR} connection: MONITOR shows a
 * command as received from a client ({@code [0 127.0.0.1:port]}) and the commands a script runs
 * as {@code [0 lua]}, so client commands are counted exactly. Counting runs between two
 * {@code ECHO} markers the harness sends, so the window is the server's own. MONITOR slows Redis
 * (every command is copied to the monitor), so rates measured with it on are lower.
 */
final class MonitorCounter implements AutoCloseable {

    private static final String START = "lockkit-bench-window-start";
    private static final String END = "lockkit-bench-window-end";

    private final Socket socket;
    private final Thread reader;
    private final CountDownLatch started = new CountDownLatch(1);
    private final CountDownLatch ended = new CountDownLatch(1);
    private final Map<String, Long> clientCommands = new TreeMap<>();
    private long scriptCommands;

    MonitorCounter(String host, int port) {
        try {
            socket = new Socket();
            socket.connect(new InetSocketAddress(host, port), 2000);
            OutputStream out = socket.getOutputStream();
            out.write("*1\r\n$7\r\nMONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            BufferedReader in = new BufferedReader(
                    new InputStreamReader(socket.getInputStream(), StandardCharsets.ISO_8859_1), 1 << 16);
            String ok = in.readLine();
            if (!"+OK".equals(ok)) {
                throw new IllegalStateException("MONITOR answered " + ok);
            }
            reader = new Thread(() -> read(in), "monitor-counter");
            reader.setDaemon(true);
            reader.start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Opens the counting window. */
    void begin(RedisAdmin admin) {
        admin.server().command("ECHO", START);
        await(started);
    }

    /** Closes the window and returns client commands by name (the markers excluded). */
    Map<String, Long> end(RedisAdmin admin) {
        admin.server().command("ECHO", END);
        await(ended);
        synchronized (clientCommands) {
            return new TreeMap<>(clientCommands);
        }
    }

    /** Client commands counted so far in the open window. */
    long clientTotal() {
        synchronized (clientCommands) {
            return RedisAdmin.sum(clientCommands);
        }
    }

    /** Commands scripts ran inside the window. */
    long scriptCommands() {
        synchronized (clientCommands) {
            return scriptCommands;
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("MONITOR did not show the harness's marker within 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private void read(BufferedReader in) {
        boolean counting = false;
        try {
            String line;
            while ((line = in.readLine()) != null) {
                int open = line.indexOf('[');
                int close = line.indexOf(']', open + 1);
                if (open < 0 || close < 0) {
                    continue;
                }
                boolean script = line.startsWith("lua", open + 3)
                        || line.substring(open, close).contains(" lua");
                int q1 = line.indexOf('"', close);
                int q2 = q1 < 0 ? -1 : line.indexOf('"', q1 + 1);
                if (q2 < 0) {
                    continue;
                }
                String command = line.substring(q1 + 1, q2).toLowerCase(Locale.ROOT);
                if (command.equals("echo") && line.contains(START)) {
                    counting = true;
                    started.countDown();
                    continue;
                }
                if (command.equals("echo") && line.contains(END)) {
                    ended.countDown();
                    return;
                }
                if (!counting) {
                    continue;
                }
                synchronized (clientCommands) {
                    if (script) {
                        scriptCommands++;
                    } else {
                        clientCommands.merge(command, 1L, Long::sum);
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
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // nothing to do
        }
    }
}
