package io.lockkit.jedis.fault;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A TCP proxy on loopback between a Redis client and Redis that cuts a connection at a chosen
 * request, so a test can lose a request or its reply deterministically: what {@code CLIENT KILL}
 * does to a connection, at the exact moment of an acquire, renew or release.
 *
 * <p>Two threads per proxied connection copy bytes. A cut is armed for the next requests whose
 * bytes contain all of some markers (e.g. a script's SHA and a lock name): {@link Cut#REQUEST}
 * drops the request and closes the connection, so Redis never runs it; {@link Cut#REPLY} lets
 * Redis run it, swallows the reply and then closes the connection. Jedis sends each command (or
 * pipeline) and reads its reply before the next one, so a chunk of client bytes is one request.
 */
final class ChaosProxy implements AutoCloseable {

    /** Where a connection is cut. */
    enum Cut {
        /** Before the request reaches Redis. */
        REQUEST,
        /** After Redis ran the request, before the client reads the reply. */
        REPLY
    }

    private record Rule(List<String> markers, Cut cut, AtomicInteger left, CountDownLatch done) {}

    private final String redisHost;
    private final int redisPort;
    private final ServerSocket server;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final AtomicReference<Rule> rule = new AtomicReference<>();
    private final AtomicInteger connections = new AtomicInteger();
    private volatile boolean closed;

    ChaosProxy(String redisHost, int redisPort) {
        this.redisHost = redisHost;
        this.redisPort = redisPort;
        try {
            this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Thread acceptor = new Thread(this::accept, "chaos-proxy-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** The URI clients use to reach Redis through the proxy. */
    String uri() {
        return "redis://127.0.0.1:" + server.getLocalPort();
    }

    /** Connections accepted so far. */
    int connections() {
        return connections.get();
    }

    /** A marker that matches a request containing any one of {@code alternatives}. */
    static String anyOf(String... alternatives) {
        return String.join("\0", alternatives);
    }

    /**
     * Cuts the next {@code times} requests that contain every marker (see {@link #anyOf}); the
     * latch opens once they are all cut. Replaces a rule that is still armed.
     */
    CountDownLatch cutNext(Cut cut, int times, String... markers) {
        Rule r = new Rule(List.of(markers), cut, new AtomicInteger(times), new CountDownLatch(times));
        rule.set(r);
        return r.done();
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException e) {
            // closing anyway
        }
        sockets.forEach(ChaosProxy::closeQuietly);
    }

    private void accept() {
        while (!closed) {
            Socket client;
            Socket upstream;
            try {
                client = server.accept();
            } catch (IOException e) {
                return;
            }
            try {
                upstream = new Socket(redisHost, redisPort);
            } catch (IOException e) {
                closeQuietly(client);
                continue;
            }
            connections.incrementAndGet();
            sockets.add(client);
            sockets.add(upstream);
            Link link = new Link(client, upstream);
            start("chaos-proxy-up", link::clientToRedis);
            start("chaos-proxy-down", link::redisToClient);
        }
    }

    private static void start(String name, Runnable body) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        t.start();
    }

    /** One proxied connection. */
    private final class Link {
        private final Socket client;
        private final Socket upstream;
        /** Set when the reply to the request in flight is to be swallowed; holds the rule to count down. */
        private volatile Rule swallowReply;

        Link(Socket client, Socket upstream) {
            this.client = client;
            this.upstream = upstream;
        }

        void clientToRedis() {
            byte[] buffer = new byte[64 * 1024];
            try (InputStream in = client.getInputStream();
                    OutputStream out = upstream.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    Rule r = matching(new String(buffer, 0, n, StandardCharsets.ISO_8859_1));
                    if (r != null && r.cut() == Cut.REQUEST) {
                        cut();
                        r.done().countDown();
                        return;
                    }
                    if (r != null) {
                        swallowReply = r; // before forwarding, so the reply cannot slip through
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // the other direction or a cut closed the sockets
            } finally {
                cut();
            }
        }

        void redisToClient() {
            byte[] buffer = new byte[64 * 1024];
            try (InputStream in = upstream.getInputStream();
                    OutputStream out = client.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    Rule r = swallowReply;
                    if (r != null) {
                        // Redis ran the request (here is its reply): drop the reply and the connection.
                        cut();
                        r.done().countDown();
                        return;
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // the other direction or a cut closed the sockets
            } finally {
                cut();
            }
        }

        private Rule matching(String request) {
            Rule r = rule.get();
            if (r == null
                    || !r.markers().stream()
                            .allMatch(m -> Arrays.stream(m.split("\0")).anyMatch(request::contains))) {
                return null;
            }
            return r.left().getAndDecrement() > 0 ? r : null;
        }

        private void cut() {
            closeQuietly(client);
            closeQuietly(upstream);
            sockets.remove(client);
            sockets.remove(upstream);
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // already gone
        }
    }
}
