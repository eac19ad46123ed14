package io.lockkit.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * A TCP proxy on loopback that delays every byte by half of {@code roundTrip} in each direction, so
 * a request and its reply take {@code roundTrip} longer, as across a network; pub/sub messages from
 * the server arrive half of it later. Bytes keep their order and nothing else changes: a pipelined
 * stream is delayed, not serialized (each direction has a reader, which stamps each chunk with the
 * time it is due, and a writer, which sends it then). This kernel has no {@code netem}; the proxy
 * serves every library alike. Four threads per proxied connection.
 */
final class DelayProxy implements AutoCloseable {

    /** Bytes read, and when they are due at the other side; no bytes: the connection ended. */
    private static final class Chunk {
        final byte[] bytes;
        final long dueNanos;

        Chunk(byte[] bytes, long dueNanos) {
            this.bytes = bytes;
            this.dueNanos = dueNanos;
        }
    }

    private final String host;
    private final int port;
    private final long oneWayNanos;
    private final ServerSocket server;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    DelayProxy(String host, int port, Duration roundTrip) {
        this.host = host;
        this.port = port;
        this.oneWayNanos = roundTrip.toNanos() / 2;
        try {
            this.server = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        daemon("delay-proxy-accept", this::accept).start();
    }

    /** The URI clients connect to instead of the server's. */
    String uri() {
        return "redis://127.0.0.1:" + server.getLocalPort();
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = server.accept();
                Socket upstream = new Socket(host, port);
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                sockets.add(client);
                sockets.add(upstream);
                pipe(client, upstream);
                pipe(upstream, client);
            } catch (IOException e) {
                if (!closed) {
                    BenchmarkMain.log("delay proxy: accepting failed: %s", e);
                }
            }
        }
    }

    /** Copies {@code from} to {@code to}, each chunk sent one way's delay after it was read. */
    private void pipe(Socket from, Socket to) throws IOException {
        InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream();
        LinkedBlockingQueue<Chunk> queue = new LinkedBlockingQueue<>();
        daemon("delay-proxy-read", () -> {
                    byte[] buffer = new byte[64 * 1024];
                    try {
                        for (int n; (n = in.read(buffer)) > 0; ) {
                            queue.add(new Chunk(Arrays.copyOf(buffer, n), System.nanoTime() + oneWayNanos));
                        }
                    } catch (IOException e) {
                        // the connection ended
                    }
                    queue.add(new Chunk(new byte[0], 0));
                })
                .start();
        daemon("delay-proxy-write", () -> {
                    try {
                        for (Chunk c = queue.take(); c.bytes.length > 0; c = queue.take()) {
                            for (long left = c.dueNanos - System.nanoTime();
                                    left > 0;
                                    left = c.dueNanos - System.nanoTime()) {
                                LockSupport.parkNanos(left);
                            }
                            out.write(c.bytes);
                            out.flush();
                        }
                    } catch (IOException | InterruptedException e) {
                        // the connection ended
                    }
                    closeQuietly(from);
                    closeQuietly(to);
                })
                .start();
    }

    private static Thread daemon(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        return t;
    }

    private void closeQuietly(Socket s) {
        sockets.remove(s);
        try {
            s.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException e) {
            // closing anyway
        }
        sockets.forEach(this::closeQuietly);
    }
}
